-- Takes the lock if it is free and mints a block of fencing tokens for the new holder.
--   KEYS[1]  the lock key          ARGV[1]  owner id of the caller
--   KEYS[2]  the token counter     ARGV[2]  lease in milliseconds
--                                  ARGV[3]  tokens to reserve (1, or the hand-off batch)
-- Returns the first token of the block (> 0) when the lock was taken; the key then holds
-- "owner:first". When it is held, returns minus the holder's remaining lease in ms (< 0), or 0
-- if the key has no expiry, so the caller knows how long to wait at most: expiry sends no
-- release message.
-- The counter is raised only on success: tokens need to rise, not to count attempts.
local ttl = redis.call('pttl', KEYS[1])
if ttl == -2 then
  if redis.call('exists', KEYS[2]) == 0 then
    -- A missing counter (first use, or Redis lost its data) starts at the server's clock in
    -- microseconds, so tokens stay above those handed out before the loss.
    local now = redis.call('time')
    redis.call('set', KEYS[2], string.format('%d', tonumber(now[1]) * 1000000 + tonumber(now[2])))
  end
  local block = tonumber(ARGV[3])
  local first = redis.call('incrby', KEYS[2], block) - block + 1
  -- Scripts run atomically, so the key is still absent: this is SET NX PX. Lua numbers are
  -- doubles: format the token as an integer (exact up to 2^53, some 200 years of microseconds).
  redis.call('set', KEYS[1], ARGV[1] .. ':' .. string.format('%d', first), 'px', ARGV[2])
  return first
end
if ttl < 0 then
  return 0
end
return -ttl
