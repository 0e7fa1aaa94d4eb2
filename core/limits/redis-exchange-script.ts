/**
 * The Lua script of RedisLimitStore.exchange (redis-limit-store.ts has the key layout): settles, then reserves, the
 * calls of one team and month in one round trip, reading each hash it needs once and writing it back once.
 */
import { DAY_WINDOW, MINUTE_WINDOW } from './limit-store.ts';

/** A month hash lives this long from its first write: longer than any month. */
export const MONTH_TTL_S = 40 * 86400;
const S = MINUTE_WINDOW;
const M = DAY_WINDOW;

// Settles then reserves calls of one team and month, in order (a call sees the calls before it). Every key it
// touches is in KEYS (a Redis Cluster refuses a script that builds key names); all share the team's hash tag.
// KEYS: 1 reservations zset, 2 in-flight hash, 3 team month hash, then per key of the batch: its window hash, its
// month hash. ARGV: month, ttl ms, settles n, reserves n, keys n, then the batch's key ids (in KEYS order); per
// settle 4 values: key index (0-based), reservation member ('' = none), tokens, dollars; per reserve 5 values: key
// index, limits 'rpm|rpd|tokens|dollars|team tokens' (-1 = none; the same text for every call of a key, read once
// per script), est tokens, est dollars, reservation member. Returns per settle {key tokens, key dollars}, then the
// team tokens after the settles, then per reserve 1 (admitted under its member) or {0, code, limit, used, retry ms}.
// (Few arguments and answers per call: the client's cost of a script grows with their number.)
export const EXCHANGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local month, ttl, nS, nR, nK = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local A = 6 + nK
local function F(x) return string.format('%.17g', x) end
local out = {}
local function push(...) for _, v in ipairs({...}) do out[#out + 1] = v end end

-- Amounts in flight, fields of KEYS[2]: 'kt|<key>|<month>', 'kd|<key>|<month>' (a key's tokens and dollars),
-- 'tt|<month>' (the team's tokens). The batch's fields are read in one HMGET; others (an expired reservation of
-- another key) when needed. Written back once; a field back at zero is deleted, so the hash holds only what is
-- in flight.
local fl, changed = {}, {}
local function kf(j) return ARGV[6 + j] .. '|' .. month end
do
  local names = { 'tt|' .. month }
  for j = 0, nK - 1 do names[#names + 1] = 'kt|' .. kf(j); names[#names + 1] = 'kd|' .. kf(j) end
  local v = redis.call('HMGET', KEYS[2], unpack(names))
  for i, name in ipairs(names) do fl[name] = tonumber(v[i] or '0') end
end
local function flight(f)
  if fl[f] == nil then fl[f] = tonumber(redis.call('HGET', KEYS[2], f) or '0') end
  return fl[f]
end
local function move(f, by)
  if by ~= 0 then fl[f] = flight(f) + by; changed[f] = true end
end

-- Month hashes (spent: t tokens, d dollars), read once, written back once when a settle changed them. Amounts in
-- flight that an older version kept in them (it, id) move to the in-flight hash the first time they are read:
-- the sum is kept, whichever version releases the reservation.
local hashes, order = {}, {}
local function hash(name, field)
  local h = hashes[name]
  if not h then
    local v = redis.call('HMGET', name, 't', 'd', 'it', 'id')
    h = { t = tonumber(v[1] or '0'), d = tonumber(v[2] or '0'), fresh = not v[1] }
    if v[3] or v[4] then
      move(field and 'kt|' .. field or 'tt|' .. month, tonumber(v[3] or '0'))
      if field then move('kd|' .. field, tonumber(v[4] or '0')) end
      redis.call('HDEL', name, 'it', 'id')
    end
    hashes[name] = h
  end
  return h
end
local function spent(name, field)
  local h = hash(name, field)
  if not h.dirty then h.dirty = true; order[#order + 1] = name end
  return h
end
local function release(member)
  if redis.call('ZREM', KEYS[1], member) == 0 then return end
  local _, key, mon, tok, dol = string.match(member, '^(.-)|(.-)|(.-)|(.-)|(.-)$')
  move('kt|' .. key .. '|' .. mon, -tonumber(tok))
  move('kd|' .. key .. '|' .. mon, -tonumber(dol))
  move('tt|' .. mon, -tonumber(tok))
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)) do release(m) end

-- Request windows, read once per key: w[p .. 'n'] calls counted, w[p .. 'o'] oldest bucket, w[p .. 'c'] calls
-- in the current bucket w[p .. 'b'] (p = 's' for the minute's seconds, 'm' for the day's minutes).
local SHAPE = { s = { ${S.bucketMs}, ${S.buckets} }, m = { ${M.bucketMs}, ${M.buckets} } }
local wins, worder = {}, {}
local function trim(name, w, p)
  local size, span = SHAPE[p][1], SHAPE[p][2]
  local cur = math.floor(now / size)
  local o = w[p .. 'o']
  if o == nil then
    w[p .. 'o'], w[p .. 'n'] = cur, 0
  elseif cur < o then
    cur = o -- the clock stepped back: count in the oldest bucket kept rather than uncount anything
  else
    local low = cur - span + 1
    if o < low then
      local f = {}
      for b = o, math.min(low - 1, o + span - 1) do f[#f + 1] = p .. b end
      if w[p .. 'n'] > 0 and low - o < span then
        local gone = 0
        for _, c in ipairs(redis.call('HMGET', name, unpack(f))) do gone = gone + tonumber(c or '0') end
        w[p .. 'n'] = w[p .. 'n'] - gone
      else
        w[p .. 'n'] = 0
      end
      redis.call('HDEL', name, unpack(f))
      w[p .. 'o'] = low
    end
  end
  if w[p .. 'b'] ~= cur then
    w[p .. 'b'] = cur
    w[p .. 'c'] = tonumber(redis.call('HGET', name, p .. cur) or '0')
  end
end
local function window(name, day)
  local w = wins[name]
  if not w then
    local v = redis.call('HMGET', name, 'so', 'sn', 'mo', 'mn')
    w = { so = tonumber(v[1]), sn = tonumber(v[2] or '0'), mo = tonumber(v[3]), mn = tonumber(v[4] or '0') }
    wins[name] = w
    worder[#worder + 1] = name
    trim(name, w, 's')
  end
  if day and not w.day then
    w.day = true
    trim(name, w, 'm')
  end
  return w
end
-- When the oldest counted call of a window leaves (whole milliseconds, at least 1).
local function retry(name, w, p)
  local size, span = SHAPE[p][1], SHAPE[p][2]
  local low, cur = w[p .. 'o'], w[p .. 'b']
  if low < cur then
    local f = {}
    for b = low, cur - 1 do f[#f + 1] = p .. b end
    local v = redis.call('HMGET', name, unpack(f))
    for i = 1, #v do
      if tonumber(v[i] or '0') > 0 then return math.max(1, (low + i - 1 + span) * size - now) end
    end
  end
  if w[p .. 'c'] > 0 then return math.max(1, (cur + span) * size - now) end
  return span * size
end

for i = 0, nS - 1 do
  local a = A + 4 * i
  local j, member = tonumber(ARGV[a]), ARGV[a + 1]
  if member ~= '' then release(member) end
  local k = spent(KEYS[5 + 2 * j], kf(j))
  k.t = k.t + tonumber(ARGV[a + 2])
  k.d = k.d + tonumber(ARGV[a + 3])
  local tm = spent(KEYS[3])
  tm.t = tm.t + tonumber(ARGV[a + 2])
  push(F(k.t), F(k.d))
end
push(F(nS > 0 and hash(KEYS[3]).t or 0))

local limits = {}
for i = 0, nR - 1 do
  local a = A + 4 * nS + 5 * i
  local j = tonumber(ARGV[a])
  local wk, km, f = KEYS[4 + 2 * j], KEYS[5 + 2 * j], kf(j)
  local lim = limits[ARGV[a + 1]]
  if not lim then
    local r, d, t, dl, tm = string.match(ARGV[a + 1], '^(.-)|(.-)|(.-)|(.-)|(.-)$')
    lim = { tonumber(r), tonumber(d), tonumber(t), tonumber(dl), tonumber(tm) }
    limits[ARGV[a + 1]] = lim
  end
  local rpmL, rpdL, tokL, dolL, teamL = lim[1], lim[2], lim[3], lim[4], lim[5]
  local estT, estD, member = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4]
  local refused = false
  local w
  if rpmL >= 0 or rpdL >= 0 then
    w = window(wk, rpdL >= 0)
    if rpmL >= 0 and w.sn >= rpmL then
      push(0, 'key_requests_per_minute', tostring(rpmL), tostring(w.sn), tostring(retry(wk, w, 's')))
      refused = true
    elseif rpdL >= 0 and w.mn >= rpdL then
      push(0, 'key_requests_per_day', tostring(rpdL), tostring(w.mn), tostring(retry(wk, w, 'm')))
      refused = true
    end
  end
  if not refused then
    local k, tm = hash(km, f), hash(KEYS[3])
    if tokL >= 0 and k.t + flight('kt|' .. f) + estT > tokL then push(0, 'key_tokens_per_month', tostring(tokL), F(k.t), '0'); refused = true
    elseif dolL >= 0 and k.d + flight('kd|' .. f) + estD > dolL then push(0, 'key_dollars_per_month', tostring(dolL), F(k.d), '0'); refused = true
    elseif teamL >= 0 and tm.t + flight('tt|' .. month) + estT > teamL then push(0, 'team_ai_tokens', tostring(teamL), F(tm.t), '0'); refused = true end
    if not refused then
      if w then
        w.sn, w.sc = w.sn + 1, w.sc + 1
        if rpdL >= 0 then w.mn, w.mc = w.mn + 1, w.mc + 1 end
      end
      move('kt|' .. f, estT)
      move('kd|' .. f, estD)
      move('tt|' .. month, estT)
      redis.call('ZADD', KEYS[1], now + ttl, member)
      out[#out + 1] = 1
    end
  end
end

local set, gone = {}, {}
for name in pairs(changed) do
  local v = fl[name]
  -- Dollars in flight may keep a rounding residue when every reservation is released.
  if v == 0 or (string.sub(name, 1, 2) == 'kd' and math.abs(v) < 1e-9) then gone[#gone + 1] = name
  else set[#set + 1] = name; set[#set + 1] = F(v) end
end
if #set > 0 then redis.call('HSET', KEYS[2], unpack(set)) end
if #gone > 0 then redis.call('HDEL', KEYS[2], unpack(gone)) end
for _, name in ipairs(order) do
  local h = hashes[name]
  redis.call('HSET', name, 't', F(h.t), 'd', F(h.d))
  -- A month hash lives 40 days from its first write: longer than any month, without an EXPIRE per script.
  if h.fresh then redis.call('EXPIRE', name, ${MONTH_TTL_S}) end
end
for _, name in ipairs(worder) do
  local w = wins[name]
  if w.day then
    redis.call('HSET', name, 'so', w.so, 'sn', w.sn, 's' .. w.sb, w.sc, 'mo', w.mo, 'mn', w.mn, 'm' .. w.mb, w.mc)
    redis.call('PEXPIRE', name, ${M.bucketMs * M.buckets})
  else
    redis.call('HSET', name, 'so', w.so, 'sn', w.sn, 's' .. w.sb, w.sc)
    redis.call('PEXPIRE', name, ${S.bucketMs * S.buckets})
  end
end
return out`;
