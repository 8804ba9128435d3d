package refgateway

import (
	"encoding/json"
	"net/http"
	"slices"
)

// event is one server-sent event as a handler plans it (spec 6).
type event struct {
	name     string // the event: line; "" sends none
	data     any    // the data: line: a JSON object, or a raw string such as [DONE]
	cuttable bool   // an event stream-cut may end the stream in the middle of
	cut      bool   // write half of the event, then end the stream
	// unended writes the event without its blank line: the next event
	// written supplies it, so only the stream's last event goes without.
	unended bool
	// glued writes the event without its blank line, and the next event
	// follows it directly: a reader takes the two for one event. The
	// stream's last event still gets its blank line, when the stream ends.
	glued bool
	// split writes the event's data over two data: lines, cut after its
	// first comma between JSON values: a reader joining the lines gets the
	// JSON back, but no line holds it whole.
	split bool
	// kind is what the event is, as planned: the type its JSON object names,
	// or its raw data. send sets it before the hooks see the event, so that
	// a hook still knows the event when another one has changed its data.
	kind string
}

// stream writes one text/event-stream answer. It flushes after every event,
// waits the configured event latency between events, and stops when the
// client goes away.
type stream struct {
	c       *call
	rc      *http.ResponseController
	sent    int
	stopped bool
	last    string  // kind of the event planned before, for hooks that look back
	held    []event // events a hook holds back to write later
	text    string  // text a hook has sent so far, for hooks that repeat it
	open    bool    // the event written before still lacks its blank line
	glued   bool    // the event written before was glued: end writes its blank line
}

// startStream writes the stream's headers.
func (c *call) startStream() *stream {
	h := c.w.Header()
	h.Set("Content-Type", c.ans.streamType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.setRequestID(h)
	c.wrote = true
	c.w.WriteHeader(http.StatusOK)
	s := &stream{c: c, rc: http.NewResponseController(c.w)}
	_ = s.rc.Flush()
	return s
}

// send plans ev: the event hooks of the active faults see it, then the
// events they return are written. It reports false when the stream must
// end: client gone, write failure, or the stream was cut.
func (s *stream) send(ev event) bool {
	switch d := ev.data.(type) {
	case string:
		ev.kind = d
	case map[string]any:
		ev.kind, _ = d["type"].(string)
	}
	evs := []event{ev}
	for _, f := range s.c.faults {
		if f.event == nil {
			continue
		}
		var next []event
		for _, e := range evs {
			next = append(next, f.event(s, e)...)
		}
		evs = next
	}
	s.last = ev.kind
	for _, e := range evs {
		if !s.write(e) {
			return false
		}
	}
	return s.c.r.Context().Err() == nil
}

// write writes one event: an "event:" line when it is named, then one
// "data:" line (two when it is split) and the blank line that ends it
// (before the next event's lines instead, when it is unended).
func (s *stream) write(ev event) bool {
	if s.stopped {
		return false
	}
	if s.sent > 0 && !s.c.sleep(s.c.g.cfg.Latency.Event) {
		return s.stop()
	}
	data, err := eventData(ev.data)
	if err != nil {
		return s.stop()
	}
	if ev.split {
		data = splitAtComma(data)
	}
	buf := s.eventStart(ev)
	if ev.cut {
		// Half an event, no terminating blank line, then the stream ends.
		buf = append(buf, data[:len(data)/2]...)
		_, _ = s.c.w.Write(buf)
		_ = s.rc.Flush()
		return s.stop()
	}
	buf = append(buf, data...)
	buf = append(buf, '\n')
	if !ev.unended && !ev.glued {
		buf = append(buf, '\n')
	}
	if _, err := s.c.w.Write(buf); err != nil {
		return s.stop()
	}
	if err := s.rc.Flush(); err != nil {
		return s.stop()
	}
	s.sent++
	s.open, s.glued = ev.unended, ev.glued
	return true
}

// end ends a stream whose handler is done: a glued last event gets the
// blank line the next event would have made unnecessary.
func (s *stream) end() {
	if s.glued && !s.stopped {
		_, _ = s.c.w.Write([]byte("\n"))
		_ = s.rc.Flush()
	}
}

// stop ends the stream: nothing more is written. It returns false, what
// write then reports.
func (s *stream) stop() bool {
	s.stopped = true
	return false
}

// eventData is the data: line's text of an event: a raw string as it is,
// anything else as JSON.
func eventData(d any) ([]byte, error) {
	if str, ok := d.(string); ok {
		return []byte(str), nil
	}
	return json.Marshal(d)
}

// splitAtComma puts what follows the first comma of JSON text that
// separates two values (one outside any string) on a data: line of its
// own; text without such a comma stays whole.
func splitAtComma(data []byte) []byte {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped character, which may be a quote
		case c == '"':
			inString = !inString
		case c == ',' && !inString:
			return slices.Concat(data[:i+1], []byte("\ndata: "), data[i+1:])
		}
	}
	return data
}

// eventStart is the start of ev's bytes up to its data: the blank line the
// event written before still lacks, the event: line of a named event, then
// "data: ".
func (s *stream) eventStart(ev event) []byte {
	var buf []byte
	if s.open {
		buf = append(buf, '\n')
	}
	if ev.name != "" {
		buf = append(buf, "event: "+ev.name+"\n"...)
	}
	return append(buf, "data: "...)
}
