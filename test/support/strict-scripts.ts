/**
 * Scripts held to the rule a Redis Cluster needs (core/counters/redis-client.ts): a script touches only the keys
 * it is given in KEYS, never a name it builds. Every script defined on the client runs behind a prelude that
 * fails the script when a command names any other key, so a test on one Redis catches what only a cluster would
 * refuse (and then only when the built name hashes to another slot).
 */
import type { RedisClient } from '../../core/counters/redis-client.ts';

// A local `redis` shadows the global one for the whole script; every command the scripts use names its key first,
// except TIME (no argument at all).
const PRELUDE = `local declared = {}
for _, k in ipairs(KEYS) do declared[k] = true end
local server = redis
local redis = setmetatable({ call = function(command, key, ...)
  if key == nil then return server.call(command) end
  if not declared[key] then error('undeclared key ' .. tostring(key)) end
  return server.call(command, key, ...)
end }, { __index = server })
`;

export function strictScripts<T extends RedisClient>(r: T): T {
  const define = r.defineCommand.bind(r);
  r.defineCommand = (name, def) => define(name, { ...def, lua: PRELUDE + def.lua });
  return r;
}
