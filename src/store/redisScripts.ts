/** The scripts the Redis store runs: each reads and writes in one step, so no other client acts between. */

/**
 * Removes the given members from both indexes, but only those whose value is gone, in one step:
 * a value set again meanwhile (SET and ZADD in one MULTI) keeps its member.
 */
export const forgetGoneScript = `
local gone = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    gone = gone + 1
  end
end
return gone`;

/**
 * Takes a claim for ARGV[1] for ARGV[2] ms if nobody holds it, or renews it if ARGV[1] already
 * does; 1 when the caller holds it afterwards. One script, so no other client acts between the
 * read and the write (a renewal never extends a hold that lapsed and passed to someone else).
 */
export const claimScript = `
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

/** Deletes the claim only while ARGV[1] holds it: compare-and-delete in one step. */
export const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Adds one to a counter (a hash of count and window end), starting a new window at ARGV[1] (now)
 * for ARGV[2] ms when none runs: one script, so a burst never loses a count. Redis expires the
 * hash a little after its window, which only tidies up. Answers count and window end.
 */
export const incrementScript = `
local now = tonumber(ARGV[1])
local ends = tonumber(redis.call('HGET', KEYS[1], 'ends'))
if ends == nil or ends <= now then
  ends = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'count', 1, 'ends', ends)
  redis.call('PEXPIRE', KEYS[1], ARGV[2] + 60000)
  return {1, ends}
end
return {redis.call('HINCRBY', KEYS[1], 'count', 1), ends}`;

/**
 * Writes an update only while the value under ARGV[1]..ARGV[2] is still ARGV[3] ('' for none):
 * compare-and-set in one step. Then four arguments an entry: its key, its text ('' deletes it),
 * its time to live in ms and its expiry time ('' for none). 1 when written.
 */
export const compareAndSetScript = `
if (redis.call('GET', ARGV[1] .. ARGV[2]) or '') ~= ARGV[3] then return 0 end
for i = 4, #ARGV, 4 do
  local member, text, ms = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if text == '' then
    redis.call('DEL', ARGV[1] .. member)
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
  else
    if ms == '' then
      redis.call('SET', ARGV[1] .. member, text)
      redis.call('ZREM', KEYS[2], member)
    else
      redis.call('SET', ARGV[1] .. member, text, 'PX', ms)
      redis.call('ZADD', KEYS[2], ARGV[i + 3], member)
    end
    redis.call('ZADD', KEYS[1], 0, member)
  end
end
return 1`;
