// Kept here for the commands that suggest a word; the domain reads src/suggest.ts itself.
export { closestWord, editDistance } from '../suggest.ts';
