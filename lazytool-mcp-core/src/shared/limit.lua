-- One call's admission under one principal's or one server's limits, atomically.
--
-- KEYS[1]  the token bucket: a hash of `tokens` and `at` (µs of Redis's clock)
-- KEYS[2]  the calls in flight: a sorted set of call ids, each scored by its lease's end (µs)
-- ARGV[1]  calls a second (0: no rate limit)
-- ARGV[2]  burst: the bucket's size
-- ARGV[3]  calls in flight at most (0: no such limit)
-- ARGV[4]  the call's id, unique among every replica's calls
-- ARGV[5]  the call's lease (µs)
--
-- Returns {0, 0} when admitted (the token taken, the lease added); {1, µs until the next
-- token} when the bucket is empty; {2, 0} when every place in flight is taken. A refused
-- call takes nothing.

-- TIME before a write: Redis before 5 must replicate effects, not the script (a no-op since).
if redis.replicate_commands then
  redis.replicate_commands()
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local per_second = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local max_in_flight = tonumber(ARGV[3])
local lease = tonumber(ARGV[5])

if max_in_flight > 0 then
  -- The leases of calls whose replica never said they ended (it crashed) end here.
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= max_in_flight then
    return {2, 0}
  end
end

if per_second > 0 then
  local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local at = tonumber(state[2]) or now
  -- A clock that went back (another Redis after a failover) refills nothing.
  if now > at then
    tokens = math.min(burst, tokens + (now - at) * per_second / 1000000)
    at = now
  end
  if tokens < 1 then
    return {1, math.ceil((1 - tokens) * 1000000 / per_second)}
  end
  redis.call('HSET', KEYS[1], 'tokens', tokens - 1, 'at', at)
  -- Expired, the bucket reads as full: it would be by then.
  redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / per_second) + 1000)
end

if max_in_flight > 0 then
  redis.call('ZADD', KEYS[2], now + lease, ARGV[4])
  local ttl = math.ceil(lease / 1000) + 1000
  if redis.call('PTTL', KEYS[2]) < ttl then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
end

return {0, 0}
