import '@mantine/core/styles.css';
import '@mantine/charts/styles.css';
import './print.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider, createTheme } from '@mantine/core';
import { Router } from 'wouter';
import { App } from './App';
import { LangProvider } from './i18n';
import { SessionProvider } from './session';

const theme = createTheme({ primaryColor: 'teal', defaultRadius: 'md', fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' });

document.documentElement.lang = localStorage.getItem('pxg_lang') === 'en' ? 'en' : 'pt-BR';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <LangProvider>
        <Router base="/dashboard">
          <SessionProvider>
            <App />
          </SessionProvider>
        </Router>
      </LangProvider>
    </MantineProvider>
  </StrictMode>,
);
