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
 * this time while its answer is still kept for the next. Only answers are shared between people:
 * each read is made with, and fails for, the session of the person who asked.
 */
export class CatalogueCache {
  readonly #entries = new Map<string, { at: number; catalogue: Catalogue }>();
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
    if (cached && this.#now() - cached.at < this.#ttlMs) return cached.catalogue;
    const reading = api.metadata.catalogue().then((catalogue) => {
      if (catalogue.source === 'platform') this.#entries.set(teamId, { at: this.#now(), catalogue });
      return catalogue;
    });
    let timer: NodeJS.Timeout | undefined;
    const fallback = new Promise<Catalogue | 'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    try {
      const first = await Promise.race([reading, fallback]);
      if (first !== 'late') return first;
      // Too slow this time: the read goes on and fills the cache; its failure is only logged.
      reading.catch((error: unknown) => {
        if (!(error instanceof UnauthorizedError))
          this.#logger.warn({ err: error, teamId }, 'could not read attack metadata');
      });
      return { types: builtInCatalogue, source: 'built-in' };
    } finally {
      clearTimeout(timer);
    }
  }
}
