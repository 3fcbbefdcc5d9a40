-- hulldown: append one event to a match stream, with version check and dedupe.
--
-- KEYS[1]  <prefix>:{match}:events   stream; entry id 0-<seq> is the version
-- KEYS[2]  <prefix>:{match}:dedupe   hash action_id -> seq
-- ARGV[1]  expected current version (integer >= 0)
-- ARGV[2]  payload (bytes), stored in field "e"
-- ARGV[3]  "1" when an action id is given, else "0"
-- ARGV[4]  action id (ignored unless ARGV[3] == "1")
-- ARGV[5]  optional (Redis Cluster only): shard channel <prefix>:{match}:tail; the new seq is
--          SPUBLISHed on it after the append (the cluster tailer's wake-up). The channel
--          shares the match's hash tag, so the script stays in one slot.
--
-- Returns {status, seq}:
--   {"appended",  new seq}
--   {"duplicate", seq the action id was first appended at}
--   {"conflict",  current version}
-- All checks happen before the first write, so a rejected call writes nothing (in a cluster, a
-- duplicate rewrites its own dedupe entry unchanged: see below).

local events = KEYS[1]
local dedupe = KEYS[2]
local expect = tonumber(ARGV[1])
local payload = ARGV[2]
local has_action = ARGV[3] == "1"
local action_id = ARGV[4]

if expect == nil or expect < 0 then
  return redis.error_reply("ERR hulldown append: bad expected version")
end

-- The current version is the seq of the stream's last entry (0-<seq>), read with XREVRANGE
-- COUNT 1: O(1), and it copies only that entry into the script (XINFO STREAM would copy the
-- first entry too - the match definition, tens of KB for an army). Streams are never trimmed
-- and entries never deleted; should a last entry have been deleted by hand, the XADD below
-- refuses the lower id (it is checked against the stream's last-generated id), so a seq is
-- never reused or skipped.
local function current_version()
  local last = redis.call("XREVRANGE", events, "+", "-", "COUNT", 1)
  if #last == 0 then
    return 0
  end
  local id = last[1][1]
  local dash = string.find(id, "-", 1, true)
  if dash == nil or string.sub(id, 1, dash - 1) ~= "0" then
    return nil
  end
  return tonumber(string.sub(id, dash + 1))
end

local channel = ARGV[5]
local in_cluster = channel ~= nil and channel ~= ""

if has_action then
  local seen = redis.call("HGET", dedupe, action_id)
  if seen then
    if in_cluster then
      -- The duplicate is acknowledged after WAIT, which counts only the writes of this call's
      -- own connection: a retry on a new connection (the first one broke before its WAIT
      -- answered) has written nothing, and WAIT would confirm at once whether or not the
      -- replicas have the append. Writing the same seq again changes nothing but is
      -- replicated, so WAIT covers everything the primary holds, the first append included.
      redis.call("HSET", dedupe, action_id, seen)
    end
    return {"duplicate", tonumber(seen)}
  end
end

local current = current_version()
if current == nil then
  return redis.error_reply("ERR hulldown append: " .. events .. " is not a hulldown event stream")
end
if expect ~= current then
  return {"conflict", current}
end

local seq = current + 1
local seq_text = string.format("%d", seq)
redis.call("XADD", events, "0-" .. seq_text, "e", payload)
if has_action then
  redis.call("HSET", dedupe, action_id, seq_text)
end
if in_cluster then
  redis.call("SPUBLISH", channel, seq_text)
end
return {"appended", seq}
