import type { Route } from '../route.ts';
import { attackRoutes } from './attacks.ts';
import { authRoutes } from './auth.ts';
import { clientRoutes } from './clients.ts';
import { kubernetesRoutes } from './kubernetes.ts';
import { metadataRoutes } from './metadata.ts';
import { monitoringRoutes } from './monitoring.ts';
import { roleRoutes } from './roles.ts';
import { trackerRoutes } from './tracker.ts';

/** Every endpoint the simulator serves under `/v1`. */
export const routes: readonly Route[] = [
  ...authRoutes,
  ...attackRoutes,
  ...clientRoutes,
  ...kubernetesRoutes,
  ...metadataRoutes,
  ...trackerRoutes,
  ...monitoringRoutes,
  ...roleRoutes,
];
