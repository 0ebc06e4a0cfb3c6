-- The bench's wrk script. With WRK_PATHS set (a file of paths, one a line), each request takes the
-- next path in turn; without it wrk sends its one precomputed request (the fastest way it can).
-- Either way it prints one line of JSON at the end for bench/wrk.ts to read.

local pathsFile = os.getenv("WRK_PATHS")
local spreadPrefix = os.getenv("WRK_SPREAD_PREFIX")

if spreadPrefix then
  -- The spread scenario: each request names a link at random among WRK_SPREAD_LINKS (slugs
  -- prefix..index), from a browser at random among WRK_SPREAD_AGENTS (a file, one a line) and a
  -- random client address (X-Forwarded-For, one proxy hop trusted by the server).
  local links = tonumber(os.getenv("WRK_SPREAD_LINKS"))
  local agents = {}

  function init(args)
    for agent in io.lines(os.getenv("WRK_SPREAD_AGENTS")) do
      agents[#agents + 1] = agent
    end
    math.randomseed(os.time())
  end

  function request()
    local address = math.random(1, 223) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
    return wrk.format("GET", "/" .. spreadPrefix .. (math.random(links) - 1), {
      ["Host"] = wrk.headers["Host"],
      ["Accept"] = "text/html",
      ["User-Agent"] = agents[math.random(#agents)],
      ["X-Forwarded-For"] = address,
    })
  end
elseif pathsFile then
  local requests = {}
  local nextIndex = 0

  function init(args)
    for path in io.lines(pathsFile) do
      requests[#requests + 1] = wrk.format("GET", path)
    end
    -- Threads start at different places in the rotation.
    nextIndex = math.random(#requests) - 1
  end

  function request()
    nextIndex = nextIndex % #requests + 1
    return requests[nextIndex]
  end
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
