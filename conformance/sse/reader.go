// Package sse reads a text/event-stream incrementally, one event at a time,
// so that the conformance engine can check (and time) each event as it
// arrives instead of after the whole body has been buffered.
//
// Why not a library: the Go SSE packages we looked at are clients (they own
// the HTTP request, reconnect, and hide malformed input), use bufio.Scanner
// with a fixed token limit (a multi-megabyte base64 image line fails or must
// be allowed to grow without bound), or do not report a stream cut in the
// middle of an event. A conformance suite needs the opposite: a passive
// parser over any io.Reader that follows the WHATWG "interpreting an event
// stream" rules exactly, reports where each event started, enforces an
// explicit size cap without ever holding more than the cap in memory, and
// tells a clean end from a truncated one. That is small enough to own.
//
// Deviations from the WHATWG processing model, on purpose:
//   - bytes are passed through as sent (no U+FFFD substitution of invalid
//     UTF-8), so that the checks downstream see exactly what the gateway sent;
//   - retry: is ignored (there is no reconnection here);
//   - a stream that ends after some field lines of an event but before the
//     blank line that would dispatch it yields ErrIncomplete when its last
//     line is a partial field other than data, or when the event has no
//     data line (WHATWG silently drops such an event; a test suite must say
//     so);
//   - a stream that ends after lines of an event with data, the last of
//     them with or without its line end, but without the blank line,
//     dispatches that event marked Unterminated (WHATWG drops it too): the
//     spec separates events by blank lines and does not say the last one is
//     followed by one, so the caller judges whether the event is whole
//     (package streams: its data is JSON or [DONE]) instead of calling it
//     cut.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventBytes is the cap on one event's data (the data lines joined
// with "\n") used when NewReader is given a cap <= 0. It is 64 MiB because an
// image event carries the base64 of a whole encoded image (a 1536x1024 PNG
// with alpha is several MB, ×4/3 for base64), and it leaves an order of
// magnitude of headroom while still bounding memory per stream.
const DefaultMaxEventBytes = 64 << 20

// ErrIncomplete reports a stream that ended in the middle of a line of an
// event, or after field lines of an event without data, before the blank
// line that dispatches it.
var ErrIncomplete = errors.New("stream ended in the middle of an event")

// ErrTooLarge reports an event whose data (or event:/id: value) exceeded the
// cap. The reader stops reading at that point, so memory stays bounded.
var ErrTooLarge = errors.New("event exceeds the size cap")

// Event is one dispatched server-sent event.
type Event struct {
	Name string // the event: field; "" when absent
	Data []byte // data lines joined with "\n"
	// DataLines is how many data: lines the event had: the spec puts a
	// JSON event on each (6), so more than one splits it.
	DataLines int
	ID        string // the last event ID at dispatch time (WHATWG: it persists across events)
	Line      int    // line number where the event started (1-based), for messages
	Named     bool   // an event: line was present
	// Unterminated: the stream ended after this event's last whole line
	// instead of the blank line that dispatches it; it is the last event.
	Unterminated bool
}

type fieldKind uint8

const (
	fieldUnknown fieldKind = iota // retry:, unknown names: value discarded
	fieldComment                  // ":" lines
	fieldData
	fieldEvent
	fieldID
)

// maxKnownName is the longest field name the reader distinguishes ("retry"
// is 5, "event" is 5); longer names are unknown and need not be buffered.
const maxKnownName = 5

// Reader parses events from an io.Reader. It is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	max int
	err error // sticky terminal error (io.EOF included)

	started bool // BOM check done
	skipLF  bool // the previous line ended with CR: a following LF belongs to it
	line    int  // number of completed lines

	// current line
	lineBytes int // bytes of the current line seen so far (excluding the terminator)
	name      [maxKnownName]byte
	nameLen   int  // length of the field name so far (may exceed len(name))
	nameDone  bool // the colon was seen
	kind      fieldKind
	strip     bool   // one leading space of the value is still to be removed
	val       []byte // value of event:/id:

	// current event
	pending   bool // a non-comment field line of this event was seen
	startLine int
	data      []byte
	dataSeen  bool
	dataLines int
	evName    string
	named     bool
	lastID    string
}

// NewReader returns a Reader over r. maxEventBytes caps one event's data;
// <= 0 selects DefaultMaxEventBytes.
func NewReader(r io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	// 64 KiB chunks: large enough that a 20 MB line is a few hundred
	// appends, small enough not to matter for many concurrent streams.
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: maxEventBytes}
}

// Next returns the next event. It returns io.EOF at a clean end of stream,
// ErrIncomplete (wrapped, with errors.Is) when the stream ended mid-event
// (in a field line other than data, or in an event without data) —
// together with the partial event for diagnostics —,
// ErrTooLarge (wrapped) when an event exceeds the cap, or the underlying
// read error. An event with data the end of the stream left without its
// blank line (its last line with or without a line end) comes back marked
// Unterminated, with a nil error. After any error, every later
// call returns the same error.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	if !r.started {
		r.started = true
		if err := r.skipBOM(); err != nil {
			return r.fail(err)
		}
	}
	for {
		chunk, err := r.fill()
		if err != nil {
			return r.fail(err)
		}
		if r.skipLF {
			r.skipLF = false
			if chunk[0] == '\n' {
				r.br.Discard(1)
				continue
			}
		}
		// Find the first line terminator: LF via a fast scan, then a CR
		// before it (both IndexByte calls are vectorised; IndexAny is not).
		end := bytes.IndexByte(chunk, '\n')
		head := chunk
		if end >= 0 {
			head = chunk[:end]
		}
		if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
			end = cr
		}
		if end < 0 {
			if err := r.consume(chunk); err != nil {
				return r.fail(err)
			}
			r.br.Discard(len(chunk))
			continue
		}
		if err := r.consume(chunk[:end]); err != nil {
			return r.fail(err)
		}
		n := end + 1
		if chunk[end] == '\r' {
			if end+1 < len(chunk) {
				if chunk[end+1] == '\n' {
					n++
				}
			} else {
				// CR is the last buffered byte: an LF may still follow
				// in the next read and then belongs to this line.
				r.skipLF = true
			}
		}
		r.br.Discard(n)
		if ev, ok, err := r.endLine(); err != nil {
			return r.fail(err)
		} else if ok {
			return ev, nil
		}
	}
}

// fill returns the buffered bytes, reading once if none are buffered, so a
// slow stream is handled as soon as each piece arrives.
func (r *Reader) fill() ([]byte, error) {
	if r.br.Buffered() == 0 {
		if _, err := r.br.Peek(1); err != nil {
			return nil, err
		}
	}
	b, _ := r.br.Peek(r.br.Buffered())
	return b, nil
}

func (r *Reader) skipBOM() error {
	b, err := r.br.Peek(1)
	if err != nil || b[0] != 0xEF {
		return ignoreEOF(err)
	}
	b, err = r.br.Peek(3)
	if err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		r.br.Discard(3)
		return nil
	}
	return ignoreEOF(err)
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// fail turns a read error into the terminal result and makes it sticky. At
// the end of the stream, an unterminated last event comes back first, with
// a nil error; the end (io.EOF) follows.
func (r *Reader) fail(err error) (Event, error) {
	var ev Event
	switch {
	case err == io.EOF:
		if r.lineBytes > 0 && r.nameDone && r.kind == fieldData {
			// A data line without its line end: the stream's end ends
			// it, and the caller judges whether its data is whole
			// (package streams). Any other partial line was cut.
			r.endLine() // a data line's end cannot fail
		}
		partialField := r.lineBytes > 0 && !(r.nameDone && r.nameLen == 0)
		switch {
		case r.pending && r.dataSeen && !partialField:
			// Lines with data, but no blank line: the last event.
			ev = r.event()
			ev.Unterminated = true
			r.err, r.data, r.val = err, nil, nil
			return ev, nil
		case r.pending || partialField:
			if !r.pending {
				r.startLine = r.line + 1
			}
			ev = r.event()
			err = fmt.Errorf("%w (event starting at line %d)", ErrIncomplete, r.startLine)
		}
	case errors.Is(err, ErrTooLarge):
		err = fmt.Errorf("%w of %d bytes (event starting at line %d)", err, r.max, r.lineOrStart())
	}
	r.err = err
	r.data = nil
	r.val = nil
	return ev, err
}

func (r *Reader) lineOrStart() int {
	if r.pending {
		return r.startLine
	}
	return r.line + 1
}

// consume feeds bytes of the current line (no terminator) to the field parser.
func (r *Reader) consume(b []byte) error {
	r.lineBytes += len(b)
	for len(b) > 0 {
		if !r.nameDone {
			i := bytes.IndexByte(b, ':')
			part := b
			if i >= 0 {
				part = b[:i]
			}
			if r.nameLen+len(part) <= maxKnownName {
				copy(r.name[r.nameLen:], part)
			}
			r.nameLen += len(part)
			if i < 0 {
				return nil
			}
			b = b[i+1:]
			r.nameDone = true
			r.strip = true
			if err := r.beginField(); err != nil {
				return err
			}
			continue
		}
		if r.strip {
			r.strip = false
			if b[0] == ' ' {
				b = b[1:]
			}
			continue
		}
		switch r.kind {
		case fieldData:
			if err := r.appendData(b); err != nil {
				return err
			}
		case fieldEvent, fieldID:
			if len(r.val)+len(b) > r.max {
				return ErrTooLarge
			}
			r.val = append(r.val, b...)
		}
		return nil
	}
	return nil
}

// beginField classifies the field once its name is complete.
func (r *Reader) beginField() error {
	r.kind = fieldUnknown
	if r.nameLen == 0 {
		if r.nameDone {
			r.kind = fieldComment
		}
		return nil
	}
	if r.nameLen <= maxKnownName {
		switch string(r.name[:r.nameLen]) {
		case "data":
			r.kind = fieldData
		case "event":
			r.kind = fieldEvent
		case "id":
			r.kind = fieldID
		}
	}
	if !r.pending {
		r.pending = true
		r.startLine = r.line + 1
	}
	if r.kind == fieldData {
		// WHATWG appends value+LF per data line and drops the final LF;
		// a separator before every line but the first is the same.
		if r.dataSeen {
			if err := r.appendData([]byte{'\n'}); err != nil {
				return err
			}
		} else if r.data == nil {
			r.data = []byte{}
		}
		r.dataSeen = true
		r.dataLines++
	}
	return nil
}

// appendData grows the data buffer itself so that it never reserves more
// than the cap (append's doubling could reserve up to twice the cap).
func (r *Reader) appendData(b []byte) error {
	need := len(r.data) + len(b)
	if need > r.max {
		return ErrTooLarge
	}
	if need > cap(r.data) {
		c := max(2*cap(r.data), need, 512)
		c = min(c, r.max)
		nd := make([]byte, len(r.data), c)
		copy(nd, r.data)
		r.data = nd
	}
	r.data = append(r.data, b...)
	return nil
}

// endLine finishes the current line; it reports an event when the line was
// the blank line that dispatches one.
func (r *Reader) endLine() (Event, bool, error) {
	blank := r.lineBytes == 0
	if !blank && !r.nameDone {
		// No colon: the whole line is the field name, the value is "".
		if err := r.beginField(); err != nil {
			return Event{}, false, err
		}
	}
	r.line++
	switch r.kind {
	case fieldEvent:
		r.evName = string(r.val)
		r.named = true
	case fieldID:
		if bytes.IndexByte(r.val, 0) < 0 {
			r.lastID = string(r.val)
		}
	}
	r.lineBytes, r.nameLen, r.nameDone, r.kind, r.strip = 0, 0, false, fieldUnknown, false
	r.val = r.val[:0]
	if cap(r.val) > 64<<10 {
		r.val = nil // do not keep a huge event:/id: buffer for the whole stream
	}
	if !blank {
		return Event{}, false, nil
	}
	if !r.dataSeen {
		// WHATWG: an event with an empty data buffer is not dispatched.
		r.resetEvent()
		return Event{}, false, nil
	}
	ev := r.event()
	r.resetEvent()
	return ev, true, nil
}

func (r *Reader) event() Event {
	return Event{Name: r.evName, Data: r.data, DataLines: r.dataLines, ID: r.lastID, Line: r.startLine, Named: r.named}
}

func (r *Reader) resetEvent() {
	r.pending, r.startLine = false, 0
	r.data, r.dataSeen, r.dataLines = nil, false, 0
	r.evName, r.named = "", false
}
