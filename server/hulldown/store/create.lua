-- hulldown: create a match's meta hash once.
--
-- KEYS[1]  <prefix>:{match}:meta
-- ARGV     field1, value1, field2, value2, ...  (at least one pair)
-- Returns 1 when created, 0 when the match already exists (nothing written).

if redis.call("EXISTS", KEYS[1]) == 1 then
  return 0
end
redis.call("HSET", KEYS[1], unpack(ARGV))
return 1
