/** A module function's arguments after the parts it is given first: what a service's method asks of its caller. */
export type AfterParts<F> = F extends (parts: never, ...args: infer A) => unknown ? A : never;
