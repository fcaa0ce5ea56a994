// dynalite ships no types; this is the part of its API the lab uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB folder; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    ssl?: boolean;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
