/**
 * The Lua script of RedisLimitStore.exchange (redis-limit-store.ts has the key layout): settles, then reserves, the
 * calls of one team and month in one round trip, reading each hash it needs once and writing it back once.
 */
import { DAY_WINDOW, MINUTE_WINDOW } from './limit-store.ts';

/** A month hash lives this long from its first write: longer than any month. */
export const MONTH_TTL_S = 40 * 86400;
const S = MINUTE_WINDOW;
const M = DAY_WINDOW;

// Settles then reserves calls of one team and month, in order (a call sees the calls before it).
// KEYS: 1 reservations zset, 2 team month hash, then per key of the batch: its window hash, its month hash.
// ARGV: base, ttl ms, settles n, reserves n; per settle 4 values: key index (0-based), reservation member ('' =
// none), tokens, dollars; per reserve 9 values: key index, rpm, rpd, tokens, dollars, team tokens (-1 = none), est
// tokens, est dollars, reservation member. Returns per settle {key tokens, key dollars}, then the team tokens after
// the settles, then per reserve {1, member, '', '', ''} or {0, code, limit, used, retry ms}.
export const EXCHANGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local base, ttl, nS, nR = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function F(x) return string.format('%.17g', x) end
local out = {}
local function push(...) for _, v in ipairs({...}) do out[#out + 1] = v end end

-- Month hashes (a key's or a team's), read once and written back once.
local hashes, order = {}, {}
local function hash(name)
  local h = hashes[name]
  if not h then
    local v = redis.call('HMGET', name, 't', 'd', 'it', 'id')
    h = { t = tonumber(v[1] or '0'), d = tonumber(v[2] or '0'), it = tonumber(v[3] or '0'), id = tonumber(v[4] or '0'), fresh = not v[1] and not v[3] }
    hashes[name] = h
    order[#order + 1] = name
  end
  return h
end
local function release(member)
  if redis.call('ZREM', KEYS[1], member) == 0 then return end
  local _, key, month, tok, dol = string.match(member, '^(.-)|(.-)|(.-)|(.-)|(.-)$')
  local k = hash(base .. 'k:' .. key .. ':m:' .. month)
  k.it = k.it - tonumber(tok)
  k.id = k.id - tonumber(dol)
  local tm = hash(base .. 't:m:' .. month)
  tm.it = tm.it - tonumber(tok)
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
  local a = 5 + 4 * i
  local j, member = tonumber(ARGV[a]), ARGV[a + 1]
  if member ~= '' then release(member) end
  local k = hash(KEYS[4 + 2 * j])
  k.t = k.t + tonumber(ARGV[a + 2])
  k.d = k.d + tonumber(ARGV[a + 3])
  local tm = hash(KEYS[2])
  tm.t = tm.t + tonumber(ARGV[a + 2])
  push(F(k.t), F(k.d))
end
push(F(nS > 0 and hash(KEYS[2]).t or 0))

for i = 0, nR - 1 do
  local a = 5 + 4 * nS + 9 * i
  local j = tonumber(ARGV[a])
  local wk, km = KEYS[3 + 2 * j], KEYS[4 + 2 * j]
  local rpmL, rpdL, tokL, dolL, teamL = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
  local estT, estD, member = tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7]), ARGV[a + 8]
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
    local k, tm = hash(km), hash(KEYS[2])
    if tokL >= 0 and k.t + k.it + estT > tokL then push(0, 'key_tokens_per_month', tostring(tokL), F(k.t), '0'); refused = true
    elseif dolL >= 0 and k.d + k.id + estD > dolL then push(0, 'key_dollars_per_month', tostring(dolL), F(k.d), '0'); refused = true
    elseif teamL >= 0 and tm.t + tm.it + estT > teamL then push(0, 'team_ai_tokens', tostring(teamL), F(tm.t), '0'); refused = true end
    if not refused then
      if w then
        w.sn, w.sc = w.sn + 1, w.sc + 1
        if rpdL >= 0 then w.mn, w.mc = w.mn + 1, w.mc + 1 end
      end
      k.it, k.id, tm.it = k.it + estT, k.id + estD, tm.it + estT
      redis.call('ZADD', KEYS[1], now + ttl, member)
      push(1, member, '', '', '')
    end
  end
end

for _, name in ipairs(order) do
  local h = hashes[name]
  redis.call('HSET', name, 't', F(h.t), 'd', F(h.d), 'it', F(h.it), 'id', F(h.id))
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
