-- hulldown: the current version of a match stream (0 when it does not exist).
--
-- KEYS[1]  <prefix>:{match}:events
-- Returns the seq of the stream's last-generated id, read from XINFO STREAM.

local events = KEYS[1]
if redis.call("EXISTS", events) == 0 then
  return 0
end
local info = redis.call("XINFO", "STREAM", events)
for i = 1, #info, 2 do
  if info[i] == "last-generated-id" then
    local id = info[i + 1]
    local dash = string.find(id, "-", 1, true)
    if dash ~= nil and string.sub(id, 1, dash - 1) == "0" then
      return tonumber(string.sub(id, dash + 1))
    end
  end
end
return redis.error_reply("ERR hulldown version: " .. events .. " is not a hulldown event stream")
