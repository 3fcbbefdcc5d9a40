-- hulldown: count one POST /matches of a client address in its current one-minute window.
--
-- KEYS[1]  <prefix>:create-rate:<client>   string, the requests counted in the open window
-- ARGV[1]  the window's length in ms
-- Returns {count, ms left}: the requests counted in the window, this one included, and the
-- milliseconds until the window closes (the key expires). The first request of a client (or the
-- first after its key expired) opens the window: the key gets its expiry then, and later
-- requests never move it, so refused requests do not make the client wait longer.

local key = KEYS[1]
local count = redis.call("INCR", key)
local left = redis.call("PTTL", key)
if left < 0 then
  -- -1: no expiry yet (this request opened the window, or something removed it): set it now.
  local window = tonumber(ARGV[1])
  redis.call("PEXPIRE", key, window)
  left = window
end
return {count, left}
