import type { Route } from './route.ts';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrongMethod'; allowed: string[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Literal segments win over parameters: `/attacks/active` is not `/attacks/:guid`. */
  literalCount: number;
}

/** A route table looked up by method and path. */
export class Router {
  readonly #compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.#compiled = routes.map((route) => {
      const segments = splitPath(route.path);
      return { route, segments, literalCount: segments.filter((segment) => !segment.startsWith(':')).length };
    });
  }

  match(method: string, path: string): RouteMatch {
    const segments = splitPath(path);
    const candidates = this.#compiled
      .map((compiled) => ({ compiled, params: matchSegments(compiled.segments, segments) }))
      .filter(
        (candidate): candidate is { compiled: CompiledRoute; params: Record<string, string> } =>
          candidate.params !== undefined,
      );
    const best = candidates
      .filter((candidate) => candidate.compiled.route.method === method)
      .sort((a, b) => b.compiled.literalCount - a.compiled.literalCount)[0];
    if (best) return { kind: 'found', route: best.compiled.route, params: best.params };
    if (candidates.length > 0)
      return {
        kind: 'wrongMethod',
        allowed: [...new Set(candidates.map((candidate) => candidate.compiled.route.method))],
      };
    return { kind: 'none' };
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, expected] of pattern.entries()) {
    const segment = actual[index] ?? '';
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
    } else if (expected !== segment) {
      return undefined;
    }
  }
  return params;
}
