-- Frees the lock only if it still holds this holder's attempt, then wakes waiters.
--   KEYS[1]  the lock key          ARGV[1]  expected "owner:attempt"
--   ARGV[2]  release channel       ARGV[3]  how long the freed key keeps its token count, ms
-- The key stays (without holder) for ARGV[3] ms, so a take in the same millisecond still
-- counts on from its tokens; after that the clock is past them.
-- Returns 1 when released, 0 when the lock had expired or belongs to someone else.
if redis.call('hget', KEYS[1], 'o') == ARGV[1] then
  redis.call('hdel', KEYS[1], 'o', 'f')
  redis.call('pexpire', KEYS[1], ARGV[3])
  redis.call('publish', ARGV[2], ARGV[1])
  return 1
end
return 0
