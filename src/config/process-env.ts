// The two reads of the bot's own environment that low-level modules need, kept in config/ (the only
// place that reads process.env) and free of dependencies: the spawn host loads this too.

/** Whether the bot's short commands start from the spawn host (`BLITZ_SPAWN_HOST=off`: from the bot). */
export const spawnHostWanted = (): boolean => process.env.BLITZ_SPAWN_HOST !== 'off';

/** The bot's environment as it is now: what a command given no environment of its own gets. */
export const currentEnv = (): Record<string, string | undefined> => ({ ...process.env });
