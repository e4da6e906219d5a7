import type { ReactNode } from 'react';
import { AppShell, Badge, Burger, Button, Group, NativeSelect, NavLink, ScrollArea, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { useLang, useT, type Lang } from './i18n';
import { useSession } from './session';
import { Login } from './pages/Login';
import { Invite } from './pages/Invite';
import { Overview } from './pages/Overview';
import { Charges } from './pages/Charges';
import { ChargeDetail } from './pages/ChargeDetail';
import { NewCharge } from './pages/NewCharge';
import { Checkouts } from './pages/Checkouts';
import { CheckoutDetail } from './pages/CheckoutDetail';
import { PaymentLinks } from './pages/PaymentLinks';
import { PaymentLinkDetail } from './pages/PaymentLinkDetail';
import { NewPaymentLink } from './pages/NewPaymentLink';
import { Subscriptions } from './pages/Subscriptions';
import { SubscriptionDetail } from './pages/SubscriptionDetail';
import { NewSubscription } from './pages/NewSubscription';
import { Customers } from './pages/Customers';
import { Withdrawals } from './pages/Withdrawals';
import { Webhooks } from './pages/Webhooks';
import { WebhookDetail } from './pages/WebhookDetail';
import { Events } from './pages/Events';
import { Statement } from './pages/Statement';
import { ApiKeys } from './pages/ApiKeys';
import { Team } from './pages/Team';
import { Account } from './pages/Account';

export function LanguageSelect() {
  const { lang, setLang, t } = useLang();
  return (
    <NativeSelect label={t.language} size="xs" value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}
      data={[{ value: 'pt-BR', label: 'Português' }, { value: 'en', label: 'English' }]} />
  );
}

function Shell({ children }: { children: ReactNode }) {
  const t = useT();
  const { session, logout, can } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const [location] = useLocation();
  const links: Array<{ href: string; label: string; show?: boolean }> = [
    { href: '/', label: t.nav.overview },
    { href: '/charges', label: t.nav.charges },
    { href: '/charges/new', label: t.nav.newCharge, show: can('operate') },
    { href: '/checkouts', label: t.nav.checkouts },
    { href: '/payment-links', label: t.nav.paymentLinks },
    { href: '/subscriptions', label: t.nav.subscriptions },
    { href: '/customers', label: t.nav.customers },
    { href: '/withdrawals', label: t.nav.withdrawals },
    { href: '/statement', label: t.nav.statement },
    { href: '/webhooks', label: t.nav.webhooks },
    { href: '/events', label: t.nav.events },
    { href: '/api-keys', label: t.nav.apiKeys, show: can('developer') },
    { href: '/team', label: t.nav.team },
    { href: '/account', label: t.nav.account },
  ];
  const active = (href: string) => href === '/' ? location === '/' : location === href || (location.startsWith(`${href}/`) && href !== '/charges') || (href === '/charges' && /^\/charges\/(?!new)/.test(location));
  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t.nav.menu} />
            <Text fw={700} c="teal.8">Pixgate</Text>
            <Text size="sm" c="dimmed" truncate maw={220} data-testid="store-name">{session?.merchant.name ?? ''}</Text>
          </Group>
          <Group gap="xs" wrap="nowrap" visibleFrom="xs">
            <Text size="sm" truncate maw={200}>{session?.user.name}</Text>
            <Badge variant="light">{session ? t.team.roles[session.user.role] : ''}</Badge>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label={t.nav.menu}>
        <AppShell.Section grow component={ScrollArea}>
          {links.filter((l) => l.show !== false).map((l) => (
            <NavLink key={l.href} component={Link} href={l.href} label={l.label} active={active(l.href)} onClick={close} />
          ))}
        </AppShell.Section>
        <AppShell.Section>
          <LanguageSelect />
          <Button mt="sm" fullWidth variant="default" onClick={logout}>{t.nav.logout}</Button>
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}

export function App() {
  const { session } = useSession();
  const [location] = useLocation();
  return (
    <Switch>
      <Route path="/login" component={Login} />
      <Route path="/invite/:token">{(p) => <Invite token={p.token} />}</Route>
      <Route>
        {!session ? <Redirect to={`/login?next=${encodeURIComponent(location + window.location.search)}`} /> : (
          <Shell>
            <Switch>
              <Route path="/" component={Overview} />
              <Route path="/charges" component={Charges} />
              <Route path="/charges/new" component={NewCharge} />
              <Route path="/charges/:id">{(p) => <ChargeDetail id={p.id} />}</Route>
              <Route path="/checkouts" component={Checkouts} />
              <Route path="/checkouts/:id">{(p) => <CheckoutDetail id={p.id} />}</Route>
              <Route path="/payment-links" component={PaymentLinks} />
              <Route path="/payment-links/new" component={NewPaymentLink} />
              <Route path="/payment-links/:id">{(p) => <PaymentLinkDetail id={p.id} />}</Route>
              <Route path="/subscriptions" component={Subscriptions} />
              <Route path="/subscriptions/new" component={NewSubscription} />
              <Route path="/subscriptions/:id">{(p) => <SubscriptionDetail id={p.id} />}</Route>
              <Route path="/customers" component={Customers} />
              <Route path="/withdrawals" component={Withdrawals} />
              <Route path="/webhooks" component={Webhooks} />
              <Route path="/webhooks/:id">{(p) => <WebhookDetail id={p.id} />}</Route>
              <Route path="/events" component={Events} />
              <Route path="/statement" component={Statement} />
              <Route path="/api-keys" component={ApiKeys} />
              <Route path="/team" component={Team} />
              <Route path="/account" component={Account} />
              <Route><Redirect to="/" /></Route>
            </Switch>
          </Shell>
        )}
      </Route>
    </Switch>
  );
}
