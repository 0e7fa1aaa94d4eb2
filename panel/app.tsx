/**
 * The shell: who is signed in (GET /api/v1/users/me), the navigation, the theme toggle and sign-out, and one page
 * per route. Any 401 sends the user to sign in and back to the page they were on afterwards.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, call, onSignedOut } from './api/client.ts';
import type { Me } from './api/views.ts';
import { match, navigate, useRoute } from './router.ts';
import { applyTheme, savedTheme, type Theme } from './theme.ts';
import { Loading } from './components/states.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { Keys } from './pages/keys.tsx';
import { UsagePage } from './pages/usage.tsx';
import { Accounts } from './pages/accounts.tsx';
import { Playground } from './pages/playground.tsx';
import { Aliases } from './pages/aliases.tsx';
import { CallPage, Calls } from './pages/calls.tsx';
import { Prices } from './pages/prices.tsx';
import { Compression } from './pages/compression.tsx';
import { Issues } from './pages/issues.tsx';
import { IssuePage } from './pages/issue.tsx';
import { ProjectPage } from './pages/project.tsx';
import { Tokens } from './pages/tokens.tsx';
import { Teams } from './pages/teams.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { Notifications } from './pages/notifications.tsx';
import { DeviceApproval } from './pages/device.tsx';
import { Instance } from './pages/instance.tsx';

const NAV: { href: string; label: string; superuser?: boolean }[] = [
  { href: '/ai', label: 'Overview' },
  { href: '/ai/keys', label: 'Keys' },
  { href: '/ai/usage', label: 'Usage' },
  { href: '/ai/accounts', label: 'Accounts' },
  { href: '/ai/playground', label: 'Playground' },
  { href: '/ai/calls', label: 'Call logs' },
  { href: '/ai/aliases', label: 'Aliases' },
  { href: '/ai/prices', label: 'Prices' },
  { href: '/ai/compression', label: 'Compression' },
  { href: '/errors', label: 'Issues' },
  { href: '/settings/teams', label: 'Teams' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/notifications', label: 'Notifications' },
  { href: '/settings/tokens', label: 'API tokens' },
  { href: '/settings/instance', label: 'Instance', superuser: true },
];

const here = () => location.pathname + location.search;

function signInPath(): string {
  const next = here();
  return next.startsWith('/sign-in') ? next : `/sign-in?next=${encodeURIComponent(next)}`;
}

export function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null>();
  const [expired, setExpired] = useState(false);
  // Whether this page was signed in: only then does a 401 mean the session ended (a first visit is just signed out).
  const wasSignedIn = useRef(false);
  const loadMe = () =>
    call<Me>(api.GET('/api/v1/users/me')).then((m) => {
      wasSignedIn.current = true;
      setMe(m);
    }, () => setMe(null));

  // Asked at the first render (not a frame later): every page waits for it.
  useLayoutEffect(() => {
    void loadMe();
    return onSignedOut(() => {
      if (wasSignedIn.current) setExpired(true);
      setMe(null);
    });
  }, []);
  useEffect(() => {
    if (me === null && route.path !== '/sign-in') navigate(signInPath(), { replace: true });
    if (route.path === '/') navigate('/ai', { replace: true });
  }, [me, route.path]);

  if (route.path === '/sign-in') {
    const next = route.query.get('next');
    const onSignedIn = async () => {
      setExpired(false);
      await loadMe();
      // Only a path of this site: never an absolute URL handed in by a link.
      navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/ai', { replace: true });
    };
    return <SignIn onSignedIn={onSignedIn} expired={expired} />;
  }
  if (!me) return <Loading what="the panel" />;
  return <Shell me={me} path={route.path} query={route.query} />;
}

function Shell({ me, path, query }: { me: Me; path: string; query: URLSearchParams }) {
  const [theme, setTheme] = useState<Theme>(savedTheme);
  const nextTheme: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };
  const signOut = async () => {
    await call(api.POST('/api/v1/auth/logout')).catch(() => undefined);
    location.assign('/sign-in');
  };
  const current = NAV.filter((n) => path === n.href || path.startsWith(`${n.href}/`)).sort((a, b) => b.href.length - a.href.length)[0];
  useEffect(() => {
    document.title = current ? `${current.label} · svc` : 'svc';
  }, [current]);
  return (
    <>
      <a href="#main" class="skip">Skip to content</a>
      <header class="top">
        <a href="/ai" class="brand">svc</a>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => !n.superuser || me.is_superuser).map((n) => (
              <li key={n.href}>
                <a href={n.href} aria-current={current === n ? 'page' : undefined}>{n.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <button type="button" onClick={() => { const t = nextTheme[theme]; applyTheme(t); setTheme(t); }} aria-label={`Theme: ${theme}; switch to ${nextTheme[theme]}`}>
            Theme: {theme}
          </button>
          <span>{me.username}</span>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page me={me} path={path} query={query} />
      </main>
    </>
  );
}

function Page({ me, path, query }: { me: Me; path: string; query: URLSearchParams }) {
  if (path === '/ai') return <Overview me={me} />;
  if (path === '/ai/keys') return <Keys me={me} />;
  if (path === '/ai/usage') return <UsagePage query={query} />;
  if (path === '/ai/accounts') return <Accounts me={me} />;
  if (path === '/ai/playground') return <Playground me={me} />;
  if (path === '/ai/aliases') return <Aliases me={me} />;
  if (path === '/ai/calls') return <Calls />;
  const kept = match('/ai/calls/:id', path);
  if (kept) return <CallPage id={kept.id} />;
  if (path === '/ai/prices') return <Prices me={me} />;
  if (path === '/ai/compression') return <Compression me={me} />;
  if (path === '/errors') return <Issues me={me} query={query} />;
  if (path === '/settings/tokens') return <Tokens />;
  if (path === '/settings/teams') return <Teams me={me} />;
  if (path === '/settings/webhooks') return <Webhooks me={me} />;
  if (path === '/settings/notifications') return <Notifications me={me} />;
  if (path === '/settings/instance') return <Instance me={me} />;
  if (path === '/device') return <DeviceApproval query={query} />;
  const issue = match('/errors/issues/:id', path);
  if (issue) return <IssuePage id={issue.id} />;
  const project = match('/errors/projects/:id', path);
  if (project) return <ProjectPage id={project.id} />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>Nothing lives at {path}. <a href="/ai">Go to the overview</a>.</p>
    </section>
  );
}
