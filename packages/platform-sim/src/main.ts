/**
 * `npm run sim`: the platform simulator on fixed ports for local development.
 * Environment: SIM_HOST (127.0.0.1), SIM_PORT (8443, HTTPS), SIM_HTTP_PORT (8080),
 * SIM_STAGE_SECONDS (2), SIM_CA_FILE (./data/sim-ca.pem).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { startSimulator, type Simulator } from './index.ts';

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`${name} must be a whole number from 0 to 65535`);
    process.exit(1);
  }
  return value;
}

function describeLogins(sim: Simulator): string[] {
  return Object.values(sim.seed.users).map(({ email, id }) => {
    const user = sim.state.users.get(id);
    const company = user ? sim.state.companies.get(user.companyId)?.name : undefined;
    const teams = user
      ? [...user.teamRoles].map(([teamId, role]) => `${sim.state.teams.get(teamId)?.name ?? teamId} (${role})`)
      : [];
    const mfa = user?.mfaCode ? `, MFA code ${user.mfaCode}` : '';
    return `  ${email.padEnd(20)} ${company}: ${user?.companyRoles.join(', ')}; ${teams.join(', ')}${mfa}`;
  });
}

const sim = await startSimulator({
  host: process.env.SIM_HOST || '127.0.0.1',
  port: numberFrom('SIM_PORT', 8443),
  httpPort: numberFrom('SIM_HTTP_PORT', 8080),
  stageSeconds: numberFrom('SIM_STAGE_SECONDS', 2),
});
const caFile = resolve(process.env.SIM_CA_FILE || 'data/sim-ca.pem');
await mkdir(dirname(caFile), { recursive: true });
await writeFile(caFile, sim.ca);

console.log(
  [
    'Platform simulator running.',
    `  HTTPS:       ${sim.url}`,
    `  plain HTTP:  ${sim.httpUrl} (authentication endpoints answer 403 there)`,
    `  certificate: ${caFile}`,
    '',
    'Point the bot at it and trust its certificate:',
    `  NODE_EXTRA_CA_CERTS=${caFile} PLATFORM_API_URL=${sim.url} npm start`,
    '',
    `Demo logins (password ${sim.seed.users.owner.password}):`,
    ...describeLogins(sim),
    '',
    `Monitoring (${sim.seed.company.name} only):`,
    `  monitoringA integration ${sim.seed.monitoring.a.integrationName}, domain ${sim.seed.monitoring.a.domain}; monitors ${sim.seed.monitoring.a.monitors.map((monitor) => `${monitor.id} ${monitor.name} (${monitor.state})`).join(', ')}`,
    `  monitoringB ${sim.seed.monitoring.b.uri}; alerts ${sim.seed.monitoring.b.alerts.map((alert) => `${alert.name} (${alert.state})`).join(', ')}`,
    '',
    `Control (outside the platform API; GET ${sim.controlUrl} lists it all):`,
    `  curl --cacert ${caFile} -H 'content-type: application/json' -d '{"state":"Alert"}' ${sim.controlUrl}/monitors/${sim.seed.monitoring.a.monitors[0]?.id}/state`,
    `  curl --cacert ${caFile} -H 'content-type: application/json' -d '{"state":"firing"}' ${sim.controlUrl}/alerts/${sim.seed.monitoring.b.alerts[0]?.name}/state`,
    `  curl --cacert ${caFile} -H 'content-type: application/json' -d '{"team":"Platform","type":"cpu","args":["-l","60"]}' ${sim.controlUrl}/attacks`,
    '',
    'Ctrl-C stops it.',
  ].join('\n'),
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    sim.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('The simulator did not stop cleanly', error);
        process.exit(1);
      },
    );
  });
}
