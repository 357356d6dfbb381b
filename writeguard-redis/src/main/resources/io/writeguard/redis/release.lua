-- Frees the lock only if it still holds this holder's attempt, then wakes waiters.
--   KEYS[1]  the lock key          ARGV[1]  expected "owner:attempt"
--   ARGV[2]  release channel       ARGV[3]  how long the freed key keeps its token count, ms
--   ARGV[4]  the releasing owner    ARGV[5]  how long it yields to a waiting owner, ms
-- When another owner marked the key while it was held (w, see acquire.lua), the releasing
-- owner yields for ARGV[5] ms: its own takes are busy until then, so the waiter woken by the
-- message below has its turn (ARGV[5] is at most ARGV[3], so the marks outlive the yield).
-- The key stays (without holder) for ARGV[3] ms, so a take in the same millisecond still
-- counts on from its tokens; after that the clock is past them.
-- Returns 1 when released, 0 when the lock had expired or belongs to someone else.
if redis.call('hget', KEYS[1], 'o') == ARGV[1] then
  redis.call('hdel', KEYS[1], 'o', 'f', 'ho')
  local waiter = redis.call('hget', KEYS[1], 'w')
  if waiter and waiter ~= ARGV[4] then
    local now = redis.call('time')
    local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    redis.call('hset', KEYS[1], 'y', ARGV[4], 'yu', string.format('%d', nowMs + tonumber(ARGV[5])))
  end
  redis.call('hdel', KEYS[1], 'w')
  redis.call('pexpire', KEYS[1], ARGV[3])
  redis.call('publish', ARGV[2], ARGV[1])
  return 1
end
return 0
