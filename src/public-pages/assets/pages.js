// The payment page without reloads: copy button, countdown, and the status pushed by the server (server-sent
// events); the page works without this file (a refresh every 10 s, a "check payment" link).
(function () {
  'use strict';
  var announce = document.getElementById('announce');

  function say(text) {
    if (!announce) return;
    announce.textContent = '';
    setTimeout(function () { announce.textContent = text; }, 50);
  }

  // The code is in a box of text (not a form field), so the whole of it shows; copy its text.
  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copyButtons(root) {
    root.querySelectorAll('[data-copy]').forEach(function (button) {
      var field = document.getElementById(button.getAttribute('data-copy'));
      if (!field) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        var text = field.textContent.trim();
        var done = function () { say(button.getAttribute('data-copied')); button.textContent = button.getAttribute('data-copied'); };
        var fallback = function () { selectText(field); document.execCommand('copy'); done(); };
        if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fallback);
        else fallback();
      });
    });
  }

  var tick = null;
  function countdown(root) {
    var el = root.querySelector('[data-expires-at]');
    if (tick) clearInterval(tick);
    if (!el) return;
    var end = Date.parse(el.getAttribute('data-expires-at'));
    var draw = function () {
      var left = Math.max(0, Math.floor((end - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      el.textContent = [h, m, s].map(function (n) { return n < 10 ? '0' + n : String(n); }).join(':');
      if (left === 0) { clearInterval(tick); refresh(); }
    };
    draw();
    tick = setInterval(draw, 1000);
  }

  function follow(root) {
    var link = root.querySelector('[data-auto-follow]');
    if (link) setTimeout(function () { window.location.assign(link.href); }, Number(link.getAttribute('data-auto-follow')) * 1000);
  }

  // The server renders the new state; only <main> is swapped, so the page never reloads.
  function refresh() {
    fetch(window.location.href, { headers: { accept: 'text/html' }, cache: 'no-store' }).then(function (r) { return r.text(); }).then(function (html) {
      var next = new DOMParser().parseFromString(html, 'text/html').getElementById('main');
      var main = document.getElementById('main');
      if (!next || !main) return;
      main.replaceWith(next);
      var heading = next.querySelector('.outcome h2');
      if (heading) say(heading.textContent);
      enhance(next);
    });
  }

  var source = null;
  function listen(main) {
    if (source || !window.EventSource || main.getAttribute('data-status') !== 'PENDING') return;
    source = new EventSource('/pay/' + main.getAttribute('data-checkout') + '/events');
    source.onmessage = function (e) {
      var status = JSON.parse(e.data).status;
      if (status !== 'PENDING') { source.close(); source = null; refresh(); }
    };
  }

  function enhance(root) {
    copyButtons(root);
    countdown(root);
    follow(root);
    if (root.getAttribute('data-checkout')) listen(root);
  }

  var main = document.getElementById('main');
  if (main) enhance(main);
})();
