-- Deletes the lock only if it still holds this holder's value, then wakes waiters.
--   KEYS[1]  the lock key          ARGV[1]  expected value "owner:token"
--                                  ARGV[2]  release channel of this key
-- Returns 1 when released, 0 when the lock had expired or belongs to someone else.
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], ARGV[1])
  return 1
end
return 0
