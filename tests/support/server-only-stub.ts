// Vitest runs lib code outside React's server graph; "server-only" would throw there.
export {};
