-- hulldown: the current version of a match stream (0 when it does not exist).
--
-- KEYS[1]  <prefix>:{match}:events
-- Returns the seq of the stream's last entry (0-<seq>), read with XREVRANGE COUNT 1 (O(1); it
-- copies that one entry only). Streams are never trimmed and entries never deleted.

local events = KEYS[1]
local last = redis.call("XREVRANGE", events, "+", "-", "COUNT", 1)
if #last == 0 then
  return 0
end
local id = last[1][1]
local dash = string.find(id, "-", 1, true)
if dash ~= nil and string.sub(id, 1, dash - 1) == "0" then
  return tonumber(string.sub(id, dash + 1))
end
return redis.error_reply("ERR hulldown version: " .. events .. " is not a hulldown event stream")
