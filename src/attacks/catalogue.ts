import type { InfraAttackMetadata } from '../client/catalogue.ts';
import { builtInCatalogue } from '../client/catalogue.ts';
import { UnauthorizedError } from '../client/errors.ts';
import type { ScopedPlatform } from '../client/index.ts';
import type { Logger } from '../logger.ts';

export interface Catalogue {
  types: readonly InfraAttackMetadata[];
  source: 'platform' | 'built-in';
}

/**
 * The attack types and arguments of each team, read from `GET /metadata` at most every ten
 * minutes. A modal must open within Slack's 3 s, so a slow platform gets the built-in catalogue
 * this time while the answer is still cached for the next.
 */
export class CatalogueCache {
  readonly #entries = new Map<string, { at: number; catalogue: Promise<Catalogue> }>();
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(logger: Logger, now: () => number, ttlMs = 10 * 60_000) {
    this.#logger = logger;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  async get(teamId: string, api: ScopedPlatform, waitMs = 1_500): Promise<Catalogue> {
    const cached = this.#entries.get(teamId);
    let catalogue = cached && this.#now() - cached.at < this.#ttlMs ? cached.catalogue : undefined;
    if (!catalogue) {
      catalogue = api.metadata.catalogue();
      const entry = { at: this.#now(), catalogue };
      this.#entries.set(teamId, entry);
      // A failed read must not be cached; an expired session must reach the person.
      catalogue.catch((error: unknown) => {
        if (this.#entries.get(teamId) === entry) this.#entries.delete(teamId);
        if (!(error instanceof UnauthorizedError)) this.#logger.warn({ err: error, teamId }, 'could not read attack metadata');
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const fallback = new Promise<Catalogue>((resolve) => {
      timer = setTimeout(() => resolve({ types: builtInCatalogue, source: 'built-in' }), waitMs);
    });
    try {
      return await Promise.race([catalogue, fallback]);
    } finally {
      clearTimeout(timer);
    }
  }
}
