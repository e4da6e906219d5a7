import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { api, setUnauthorizedHandler, type KeyRole, type LoginAnswer, type Role, type User } from './api';

/**
 * Who is logged in, as the login answer told us (user and store, never the token: the session itself is
 * the HttpOnly cookie). Kept in localStorage so a reload or a new tab knows the role; a 401 forgets it.
 */
interface Session { user: User; merchant: { id: string; name: string | null } }
const STORAGE = 'pxg_user';

type Permission = 'operate' | 'money' | 'developer' | 'team';
// Mirrors src/auth/permission.rules.ts (docs/contract/access.md#roles): buttons a role may not use are not shown.
const ALLOWED: Record<Permission, Role[]> = {
  operate: ['OWNER', 'DEVELOPER', 'FINANCE'],
  money: ['OWNER', 'FINANCE'],
  developer: ['OWNER', 'DEVELOPER'],
  team: ['OWNER'],
};

// Key roles widest first; a key acts with the row its role names, FULL with the OWNER's (docs/contract/access.md#key-roles).
const KEY_ROLES: KeyRole[] = ['FULL', 'FINANCE', 'DEVELOPER', 'VIEWER'];
const keyRights = (k: KeyRole): Role => (k === 'FULL' ? 'OWNER' : k);
/** Mirrors mayMintKey: the key roles whose rights are all the user's own (OWNER: all; DEVELOPER: DEVELOPER, VIEWER). */
const mintable = (role: Role): KeyRole[] =>
  KEY_ROLES.filter((k) => (Object.keys(ALLOWED) as Permission[]).every((p) => !ALLOWED[p].includes(keyRights(k)) || ALLOWED[p].includes(role)));

interface SessionApi {
  session: Session | null;
  loggedIn(answer: LoginAnswer): void;
  logout(): Promise<void>;
  can(p: Permission): boolean;
  /** The API key roles this user may mint, the default first. */
  keyRoles(): KeyRole[];
  updateUser(u: Partial<User>): void;
}

const Ctx = createContext<SessionApi | null>(null);

function readStored(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(STORAGE) ?? 'null') as Session | null;
    return s && s.user && s.merchant ? s : null;
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(readStored);
  const [location, navigate] = useLocation();

  const forget = useCallback(() => {
    localStorage.removeItem(STORAGE);
    setSession(null);
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      forget();
      // Back to this page after the next login.
      const here = window.location.pathname.replace(/^\/dashboard/, '') + window.location.search;
      if (!here.startsWith('/login')) navigate(`/login?expired=1&next=${encodeURIComponent(here || '/')}`);
    });
    return () => setUnauthorizedHandler(null);
  }, [forget, navigate, location]);

  const value: SessionApi = {
    session,
    loggedIn(answer) {
      const s = { user: answer.user, merchant: answer.merchant };
      localStorage.setItem(STORAGE, JSON.stringify(s));
      setSession(s);
    },
    async logout() {
      await api.post('/auth/logout').catch(() => {});
      forget();
      navigate('/login');
    },
    can: (p) => !!session && ALLOWED[p].includes(session.user.role),
    keyRoles: () => (session && ALLOWED.developer.includes(session.user.role) ? mintable(session.user.role) : []),
    updateUser(u) {
      if (!session) return;
      const s = { ...session, user: { ...session.user, ...u } };
      localStorage.setItem(STORAGE, JSON.stringify(s));
      setSession(s);
    },
  };
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useSession(): SessionApi {
  const s = useContext(Ctx);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
