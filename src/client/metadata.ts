import { z } from 'zod';
import { builtInCatalogue, type InfraAttackMetadata, infraAttackMetadataSchema } from './catalogue.ts';
import { PlatformError, UnauthorizedError } from './errors.ts';
import type { CallContext, Request } from './request.ts';

export interface AttackCatalogue {
  types: readonly InfraAttackMetadata[];
  /** `built-in` when the platform's metadata could not be read. */
  source: 'platform' | 'built-in';
}

export interface MetadataApi {
  /**
   * The platform's attack types, or the built-in catalogue when they cannot be read, so that
   * arguments are still checked. An expired session is not hidden: it still throws.
   */
  catalogue(): Promise<AttackCatalogue>;
}

export function metadataApi(request: Request, session: CallContext): MetadataApi {
  // The attack types and their arguments, as the platform describes them.
  const list = () =>
    request({
      session,
      teamScoped: true,
      method: 'GET',
      path: '/metadata',
      schema: z.array(infraAttackMetadataSchema),
    });
  return {
    async catalogue() {
      try {
        const types = await list();
        if (types.length > 0) return { types, source: 'platform' };
      } catch (error) {
        if (!(error instanceof PlatformError) || error instanceof UnauthorizedError) throw error;
      }
      return { types: builtInCatalogue, source: 'built-in' };
    },
  };
}
