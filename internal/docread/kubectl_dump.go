package docread

// The container logs `kubectl cluster-info dump` writes between its Lists
// when it writes to its standard output (without --output-directory): a
// section of a container's log lines from a START line to the matching END
// line, each starting a line.

import "bytes"

// The lines that start and end a log section.
var (
	dumpLogsStart = []byte("==== START logs for container ")
	dumpLogsEnd   = []byte("==== END logs for container ")
)

// WithoutDumpLogs returns data with the container log sections of
// `kubectl cluster-info dump` output blanked out, and how many there were:
// every byte of a section but its newlines becomes a space, so that the
// Lists around them keep their lines. data itself is left alone; with no
// section it is returned as it is.
func WithoutDumpLogs(data []byte) ([]byte, int) {
	if !bytes.HasPrefix(data, dumpLogsStart) && !bytes.Contains(data, append([]byte{'\n'}, dumpLogsStart...)) {
		return data, 0
	}
	out := bytes.Clone(data)
	sections := 0
	for off := 0; off < len(out); {
		next := len(out)
		if i := bytes.IndexByte(out[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		line := out[off:next]
		if !bytes.HasPrefix(line, dumpLogsStart) {
			off = next
			continue
		}
		// "container NAME of pod NS/NAME ====": the END line repeats it.
		which := bytes.TrimRight(line[len(dumpLogsStart):], "\r\n")
		end := append(append([]byte{'\n'}, dumpLogsEnd...), which...)
		stop := len(out)
		if i := bytes.Index(out[off:], end); i >= 0 {
			stop = off + i + len(end)
		}
		for i := off; i < stop; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
		sections++
		off = stop
	}
	return out, sections
}
