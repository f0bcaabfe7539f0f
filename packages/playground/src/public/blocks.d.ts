/** Elements the page draws, by where they sit: in input blocks, or in accessories and actions blocks. */
export const DRAWN_ELEMENTS: { input: ReadonlySet<string>; action: ReadonlySet<string> };
/** Block types the page draws. */
export const DRAWN_BLOCKS: ReadonlySet<string>;
