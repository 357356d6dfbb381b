-- Extends the lease only if the lock still holds this holder's attempt.
--   KEYS[1]  the lock key          ARGV[1]  expected "owner:attempt"
--                                  ARGV[2]  new lease in milliseconds
-- Returns 1 when renewed, 0 when the lock had expired or belongs to someone else.
if redis.call('hget', KEYS[1], 'o') == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
