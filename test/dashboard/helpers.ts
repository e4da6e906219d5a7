import { join } from 'node:path';
import { expect, onTestFailed } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { SCREENSHOTS, type LiveContext } from '../support/browser.js';

/** A merchant with its first user invited by the operator; the invitation path on this server. */
export async function merchantWithOwner(t: LiveContext, email: string, fields: Record<string, unknown> = {}) {
  const m = await t.merchant(fields);
  const invited = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email, name: 'Maria Souza', role: 'OWNER' });
  expect(invited.status, invited.raw).toBe(201);
  return { ...m, invitePath: new URL(invited.body.data.invitation.url).pathname };
}

/** The control labelled exactly `text` (a required field's label ends in a hidden " *"). */
export const field = (page: Page, text: string) =>
  page.getByLabel(new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`));

export const PASSWORD = 'correto-cavalo-bateria-42';

export async function acceptInvitation(page: Page, base: string, invitePath: string, password = PASSWORD, shot?: (page: Page) => Promise<void>) {
  await page.goto(`${base}${invitePath}`);
  await page.getByRole('heading', { name: 'Aceitar convite' }).waitFor();
  await shot?.(page);
  await field(page, 'Senha (12 a 128 caracteres)').fill(password);
  await field(page, 'Repita a senha').fill(password);
  await page.getByRole('button', { name: 'Criar acesso' }).click();
  await page.getByText('Acesso criado').waitFor();
}

export async function logIn(page: Page, email: string, password = PASSWORD) {
  await field(page, 'E-mail').fill(email);
  await field(page, 'Senha').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
}

// jsqr is CommonJS with an ES-style `default`: NodeNext types the default import as the module object.
const jsQR = jsQRModule.default;

/** The text a PNG QR code (base64) decodes to. */
export function decodeQr(base64: string): string | null {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

/** The API over HTTP with a bearer (an API key or nothing) or the browser's own cookie. */
export async function http(base: string, method: string, path: string, opts: { key?: string; cookie?: string; body?: unknown; dashboard?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.dashboard) headers['x-pixgate-client'] = 'dashboard';
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body, raw: text };
}

/** `pxg_session=...` from the browser context, to call the API as that user over plain HTTP. */
export async function sessionCookie(page: Page): Promise<string> {
  const c = (await page.context().cookies()).find((x) => x.name === 'pxg_session');
  expect(c, 'pxg_session cookie').toBeDefined();
  expect(c!.httpOnly).toBe(true);
  expect(c!.sameSite).toBe('Strict');
  return `pxg_session=${c!.value}`;
}

/** On failure, what the page showed: artifacts/screenshots/FAILED-<name>.png. */
export function shotOnFailure(page: Page, name: string) {
  onTestFailed(async () => {
    await page.screenshot({ path: join(SCREENSHOTS, `FAILED-${name}.png`), fullPage: true }).catch(() => {});
    console.error(`failed at ${page.url()}; screenshot artifacts/screenshots/FAILED-${name}.png`);
  });
}

/** expect.poll with room for a loaded machine (its default gives up after one second). */
export const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 100 });
