import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { loadConfig } from '../../src/config.ts';
import { readDockerfile, root } from './dockerfile.ts';
import { documentedSecret } from './readme.ts';

const folder = `${root}deploy/kubernetes/`;
type Manifest = { apiVersion: string; kind: string; metadata: { name: string } };

const documents: { file: string; manifest: Manifest }[] = readdirSync(folder)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(folder + file, 'utf8')).map((doc) => {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      return { file, manifest: doc.toJS() as Manifest };
    }),
  );

function one<T>(kind: string): T {
  const found = documents.filter((d) => d.manifest.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!.manifest as T;
}

/** The model of kubernetes-models for this apiVersion and kind, with its schema's validator. */
async function validate(manifest: Manifest): Promise<void> {
  const specifier = `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`;
  const module = (await import(/* @vite-ignore */ specifier)) as Record<
    string,
    new (
      data: unknown,
    ) => { validate(): void }
  >;
  const Model = module[manifest.kind];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest).validate();
}

const deployment = one<IDeployment>('Deployment');
const pod = deployment.spec!.template.spec!;
const container: IContainer = pod.containers[0]!;
const env = new Map((container.env ?? []).map((e) => [e.name, e]));

describe('deploy/kubernetes', () => {
  it('holds a Deployment, a Service, a PodDisruptionBudget and a ConfigMap', () => {
    expect(documents.map((d) => d.manifest.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
      'Service',
    ]);
  });

  it.each(documents.map((d) => [d.file, d.manifest.kind, d.manifest] as const))(
    '%s: %s is valid against the Kubernetes schema for its apiVersion and kind',
    async (_file, _kind, manifest) => {
      await expect(validate(manifest)).resolves.toBeUndefined();
    },
  );

  it('fails the schema check for a wrong field type or an unknown apiVersion, so the check above can fail', async () => {
    await expect(
      validate({ ...deployment, spec: { ...deployment.spec!, replicas: 'two' } } as unknown as Manifest),
    ).rejects.toThrow(/replicas/);
    const probe = { ...container, readinessProbe: { httpGet: { path: '/readyz' } } };
    await expect(
      validate({
        ...deployment,
        spec: { ...deployment.spec!, template: { spec: { containers: [probe] } } },
      } as unknown as Manifest),
    ).rejects.toThrow(/port/);
    await expect(validate({ ...deployment, apiVersion: 'apps/v1beta3' } as Manifest)).rejects.toThrow();
  });

  it('runs two replicas of one container, as the image user', () => {
    expect(deployment.spec!.replicas).toBe(2);
    expect(pod.containers).toHaveLength(1);
    expect(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    const imageUser = readDockerfile()
      .stages.at(-1)!
      .instructions.findLast((i) => i.keyword === 'USER')!.rest;
    expect(`${pod.securityContext?.runAsUser}:${pod.securityContext?.runAsGroup}`).toBe(imageUser);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the operations port the bot serves them on', () => {
    const port = container.ports!.find((p) => p.name === 'http')!;
    expect(env.get('PORT')?.value).toBe(String(port.containerPort));
    const ops = container.ports!.find((p) => p.name === 'ops')!;
    expect(env.get('OPS_PORT')?.value).toBe(String(ops.containerPort));
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
    expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
  });

  it('gives the bot time to finish its work after SIGTERM, beyond the pre-stop pause', () => {
    const pause = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + 30);
  });

  it('keeps a replica up through voluntary disruptions', () => {
    const budget = one<IPodDisruptionBudget>('PodDisruptionBudget');
    expect(budget.spec!.minAvailable).toBe(1);
    expect(budget.spec!.selector?.matchLabels).toEqual(deployment.spec!.template.metadata!.labels);
  });

  it('serves the pods through a Service on their named port', () => {
    const service = one<IService>('Service');
    expect(service.spec!.selector).toEqual(deployment.spec!.template.metadata!.labels);
    expect(deployment.spec!.selector.matchLabels).toEqual(deployment.spec!.template.metadata!.labels);
    expect(service.spec!.ports!.map((p) => p.targetPort)).toEqual(['http']);
  });

  it('takes the tokens, SESSION_KEY and STORE_URL from the Secret, never from the manifest', () => {
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SESSION_KEY',
      'SESSION_KEY_PREVIOUS',
      'STORE_URL',
    ]) {
      expect(env.get(name)?.value, name).toBeUndefined();
      expect(env.get(name)?.valueFrom?.secretKeyRef, name).toMatchObject({ name: 'faultline', key: name });
    }
    const configMap = one<IConfigMap>('ConfigMap');
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SESSION_KEY', 'STORE_URL'])
      expect(configMap.data, name).not.toHaveProperty(name);
  });

  it('documents a Secret with exactly the keys the Deployment requires, and a Redis STORE_URL', () => {
    const required = [...env.values()].flatMap((e) =>
      e.valueFrom?.secretKeyRef && !e.valueFrom.secretKeyRef.optional ? [e.valueFrom.secretKeyRef.key] : [],
    );
    const documented = documentedSecret();
    expect(Object.keys(documented).sort()).toEqual(required.sort());
    expect(documented.STORE_URL).toMatch(/^rediss?:\/\//);
  });

  it("configures the bot in HTTP mode on the README's Redis, on the Service's port and the probed one", () => {
    const configMap = one<IConfigMap>('ConfigMap');
    const secret: Record<string, string> = {
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'signing-secret',
      SESSION_KEY: Buffer.alloc(32, 7).toString('base64'),
      STORE_URL: documentedSecret().STORE_URL!,
    };
    const variables: Record<string, string> = { ...configMap.data };
    for (const e of env.values()) {
      if (e.value !== undefined) variables[e.name] = e.value;
      const key = e.valueFrom?.secretKeyRef?.key;
      if (key && secret[key] !== undefined) variables[e.name] = secret[key];
    }
    expect(variables).not.toHaveProperty('SLACK_APP_TOKEN');
    const config = loadConfig(variables);
    expect(config.slack.socketMode).toBe(false);
    expect(config.storeUrl).toMatch(/^rediss?:\/\//);
    expect(config.port).toBe(container.ports!.find((p) => p.name === 'http')!.containerPort);
    expect(config.opsPort).toBe(container.ports!.find((p) => p.name === 'ops')!.containerPort);
  });
});
