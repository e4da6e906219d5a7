import { useEffect, useState } from 'react';
import { Box, Loader, Stack, Text } from '@mantine/core';
import { api } from './api';
import { useLang } from './i18n';

/**
 * A public page as a payer will see it, drawn by the server from a draft (docs/checkouts.md#previews): the very
 * renderer of /l/{id}, so the preview cannot drift from the page. The HTML is shown in a sandboxed frame: no script
 * runs and no form submits, and it loads only this origin's stylesheet and images. Redrawn 300 ms after the draft
 * stops changing; a draft the server refuses keeps the last good picture and says why.
 */
export function PagePreview({ path, body, title, testId }: { path: string; body: unknown; title: string; testId?: string }) {
  const { t, lang } = useLang();
  const [html, setHtml] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const draft = JSON.stringify(body);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api.render(`${path}${lang === 'en' ? '?lang=en' : ''}`, JSON.parse(draft)).then(
        (page) => { if (live) { setHtml(page); setError(null); } },
        (e: unknown) => { if (live) setError(e instanceof Error ? e.message : String(e)); },
      );
    }, 300);
    return () => { live = false; clearTimeout(timer); };
  }, [path, draft, lang]);
  return (
    <Stack gap={6}>
      <Box maw={392} w="100%" style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 12, overflow: 'hidden', background: '#f3f5f7' }}>
        {html === null ? <Box p="xl" ta="center"><Loader aria-label={t.common.loading} /></Box> : (
          <iframe title={title} srcDoc={html} sandbox="allow-same-origin" data-testid={testId}
            style={{ display: 'block', width: '100%', height: 620, border: 0 }} />
        )}
      </Box>
      {error ? <Text size="xs" c="red.8" role="status">{t.common.previewStale}: {error}</Text> : null}
    </Stack>
  );
}
