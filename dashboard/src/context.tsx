import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { DomainClient, components } from '../../client/src/index.js';
import type { Session } from './session.js';
import type { Mode } from './client.js';

export type Organization = components['schemas']['Organization'];

export interface DashboardState {
  session: Session;
  client: DomainClient;
  mode: Mode;
  setMode: (mode: Mode) => void;
  orgs: Organization[];
  /** The organisation the pages act on; undefined until the user has one. */
  org: Organization | undefined;
  selectOrg: (orgId: string) => void;
  /** Reads the organisation list again (after creating one). */
  reloadOrgs: () => Promise<void>;
}

export const DashboardContext = createContext<DashboardState | undefined>(undefined);

export function useDashboard(): DashboardState {
  const state = useContext(DashboardContext);
  if (!state) throw new Error('useDashboard outside the signed-in dashboard');
  return state;
}
