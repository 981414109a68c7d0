// Types of the workerd entry: the same API as the main entry.
export * from './index.js';
