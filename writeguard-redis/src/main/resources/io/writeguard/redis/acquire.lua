-- Takes the lock if it is free and mints a block of fencing tokens for the new holder.
--   KEYS[1]  the lock key, a hash:  o = "owner:attempt" of the holder (absent when free),
--            f = first token of the holder's block, t = the highest token ever minted here
--   ARGV[1]  "owner:attempt" of the caller    ARGV[2]  lease in milliseconds
--   ARGV[3]  tokens to reserve (1, or the hand-off batch; at most 1024)
--   ARGV[4]  the caller's owner (its service instance)
--   ARGV[5]  "1" when the caller will wait if the key is busy, "0" for a try
-- Turns between processes: a waiting caller of another owner marks the key (w = its owner);
-- release.lua then makes the releasing owner yield (y, yu = until when, server ms), so the
-- waiter, woken by the release message, takes the key before the releasing process takes it
-- again. A yielding owner's take before yu is busy, with the time left as its hint; any
-- take clears the marks.
-- Returns the first token of the block (> 0) when the lock is the caller's. A take sent again
-- (client resend after a reconnect) finds its own attempt and gets the same block. When held
-- by someone else, returns minus the holder's remaining lease in ms (< 0), or 0 if the key has
-- no expiry, so the caller knows how long to wait at most: expiry sends no release message.
-- Tokens are the server's clock in milliseconds times 2048 plus a per-key count, and every
-- token minted in millisecond T is below (T + 1) * 2048: when a take would pass that, it is
-- refused with -1 (retry in a millisecond). So tokens rise even when Redis restarts without
-- its data, at any rate, as long as the server clock does not step back. Lua numbers are
-- doubles: exact up to 2^53, that is until the year 2109.
local held = redis.call('hget', KEYS[1], 'o')
if held == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return tonumber(redis.call('hget', KEYS[1], 'f'))
end
if held then
  if ARGV[5] == '1' and redis.call('hget', KEYS[1], 'ho') ~= ARGV[4] then
    redis.call('hset', KEYS[1], 'w', ARGV[4])
  end
  local ttl = redis.call('pttl', KEYS[1])
  if ttl < 0 then
    return 0
  end
  return -ttl
end
local now = redis.call('time')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if redis.call('hget', KEYS[1], 'y') == ARGV[4] then
  local yieldUntil = tonumber(redis.call('hget', KEYS[1], 'yu') or '0')
  if nowMs < yieldUntil then
    return nowMs - yieldUntil
  end
end
local base = nowMs * 2048
local next = tonumber(redis.call('hget', KEYS[1], 't') or '0') + 1
local first = math.max(base, next)
local block = tonumber(ARGV[3])
-- Tokens minted at an earlier millisecond end below base + 2048, so next > base + 2048 only
-- when the clock stepped back: then count on (documented). Otherwise the block must fit.
if first <= base + 2048 and first + block > base + 2048 then
  return -1
end
redis.call('hdel', KEYS[1], 'w', 'y', 'yu')
redis.call('hset', KEYS[1], 'o', ARGV[1], 'ho', ARGV[4], 'f', string.format('%d', first),
  't', string.format('%d', first + block - 1))
redis.call('pexpire', KEYS[1], ARGV[2])
return first
