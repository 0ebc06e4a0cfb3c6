import { DomainError } from "@/lib/http/errors";
import { processSingleton } from "@/lib/process-singleton";

/** Files read (parsed) at once by this process; a further upload is asked to come back shortly. */
const FILE_READS_AT_ONCE = 2;
/** Jobs running at once in this process; the others wait their turn, queued. */
const JOBS_AT_ONCE = 2;
/**
 * Rows being checked or written at once by every job of the process together: each holds a
 * database connection only while it writes, and this leaves the rest of the pool to requests.
 */
const ROWS_AT_ONCE = 6;
const FILE_READ_RETRY_SECONDS = 5;

/** A bounded number of turns: `tryRun` refuses when all are taken, `run` waits for one. */
type Turns = {
  tryRun<T>(work: () => Promise<T>): Promise<T> | null;
  run<T>(work: () => Promise<T>): Promise<T>;
};

function boundedTurns(size: number): Turns {
  let taken = 0;
  const waiting: (() => void)[] = [];
  const finish = () => {
    const next = waiting.shift();
    if (next) next();
    else taken--;
  };
  const during = <T>(work: () => Promise<T>) => work().finally(finish);
  return {
    tryRun: (work) => {
      if (taken >= size) return null;
      taken++;
      return during(work);
    },
    run: (work) => {
      if (taken < size) {
        taken++;
        return during(work);
      }
      return new Promise<void>((resolve) => waiting.push(resolve)).then(() => during(work));
    },
  };
}

const fileReads = processSingleton("imports.fileReads", () => boundedTurns(FILE_READS_AT_ONCE));
const jobs = processSingleton("imports.jobs", () => boundedTurns(JOBS_AT_ONCE));
const rows = processSingleton("imports.rows", () => boundedTurns(ROWS_AT_ONCE));
/** Imports this process runs or has queued to run: asking again to resume one adds nothing. */
const jobsHere = processSingleton("imports.jobsHere", () => new Set<string>());

/** Reads an uploaded file if a turn is free; otherwise a 429 with Retry-After, never a queue of files in memory. */
export function readingFile<T>(read: () => Promise<T>): Promise<T> {
  const reading = fileReads.get().tryRun(read);
  if (reading) return reading;
  throw new DomainError(
    "rate_limited",
    `The service is reading other import files right now; send yours again in ${FILE_READ_RETRY_SECONDS} seconds.`,
    { "Retry-After": String(FILE_READ_RETRY_SECONDS) },
  );
}

/** Runs the import's job when a turn is free, unless this process already runs or awaits it. */
export function runningJob(id: string, job: () => Promise<void>): Promise<void> | null {
  if (jobsHere.get().has(id)) return null;
  jobsHere.get().add(id);
  return jobs
    .get()
    .run(job)
    .finally(() => jobsHere.get().delete(id));
}

/** One row's work, in its turn among every job's rows. */
export function rowTurn<T>(work: () => Promise<T>): Promise<T> {
  return rows.get().run(work);
}
