package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll drains a Reader and returns its events and terminal error
// (nil for a clean EOF).
// readAll reads every event; the data lines are counted apart
// (TestReaderCountsDataLines), so they are left out here.
func readAll(r io.Reader, max int) ([]Event, error) {
	rd := NewReader(r, max)
	var evs []Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		ev.DataLines = 0
		evs = append(evs, ev)
	}
}

// Each event says how many data: lines it had: the spec puts one JSON
// event on each (6).
func TestReaderCountsDataLines(t *testing.T) {
	rd := NewReader(strings.NewReader("data: {\"a\":1}\n\ndata: {\"a\":\ndata: 1}\n\nevent: x\nid: 1\ndata: 2\n\ndata\ndata\ndata\n\n"), 0)
	var got []int
	for {
		ev, err := rd.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		got = append(got, ev.DataLines)
	}
	assert.Equal(t, []int{1, 2, 1, 3}, got)
}

func ev(name, data string, line int) Event {
	return Event{Name: name, Data: []byte(data), Line: line, Named: name != ""}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []Event
		err  error
	}{
		{name: "empty stream", in: ""},
		{name: "LF", in: "data: a\n\ndata: b\n\n", want: []Event{ev("", "a", 1), ev("", "b", 3)}},
		{name: "CRLF", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []Event{ev("", "a", 1), ev("", "b", 3)}},
		{name: "CR", in: "data: a\r\rdata: b\r\r", want: []Event{ev("", "a", 1), ev("", "b", 3)}},
		{name: "mixed line ends", in: "data: a\r\ndata: b\rdata: c\n\r\ndata: d\n\r", want: []Event{ev("", "a\nb\nc", 1), ev("", "d", 5)}},
		{name: "LF CR is two line ends", in: "data: a\n\rdata: b\n\n", want: []Event{ev("", "a", 1), ev("", "b", 3)}},
		{name: "comments ignored", in: ": hello\n:\ndata: a\n: inside\n\n: ping\n\n", want: []Event{ev("", "a", 3)}},
		{name: "event line", in: "event: x\ndata: {}\n\n", want: []Event{ev("x", "{}", 1)}},
		{name: "event after data", in: "data: {}\nevent: x\n\n", want: []Event{ev("x", "{}", 1)}},
		{name: "empty event value is named", in: "event:\ndata: d\n\n", want: []Event{{Name: "", Data: []byte("d"), Line: 1, Named: true}}},
		{name: "event name reset between events", in: "event: x\ndata: 1\n\ndata: 2\n\n", want: []Event{ev("x", "1", 1), ev("", "2", 4)}},
		{name: "multi-line data", in: "data: a\ndata: b\ndata:\ndata: c\n\n", want: []Event{ev("", "a\nb\n\nc", 1)}},
		{name: "no space after colon", in: "data:a\n\n", want: []Event{ev("", "a", 1)}},
		{name: "only one space stripped", in: "data:  a \n\n", want: []Event{ev("", " a ", 1)}},
		{name: "colon in value kept", in: "data: {\"a\":1}\n\n", want: []Event{ev("", `{"a":1}`, 1)}},
		{name: "field without colon", in: "data\ndata\n\n", want: []Event{ev("", "\n", 1)}},
		{name: "empty data dispatched", in: "data:\n\n", want: []Event{ev("", "", 1)}},
		{name: "BOM at start", in: "\xEF\xBB\xBFdata: a\n\n", want: []Event{ev("", "a", 1)}},
		{name: "BOM only at start", in: "data: a\n\n\xEF\xBB\xBFdata: b\n\n", want: []Event{ev("", "a", 1)}},
		{name: "partial BOM is a field name", in: "\xEF\xBBdata: a\n\n"},
		{name: "retry and unknown fields ignored", in: "retry: 1000\nfoo: bar\nverylongfieldname: x\ndata: a\n\n", want: []Event{ev("", "a", 1)}},
		{name: "no data not dispatched", in: "event: x\n\nid: 1\n\ndata: a\n\n", want: []Event{{Data: []byte("a"), ID: "1", Line: 5}}},
		{name: "id persists", in: "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", want: []Event{{Data: []byte("a"), ID: "7", Line: 1}, {Data: []byte("b"), ID: "7", Line: 4}, {Data: []byte("c"), Line: 6}}},
		{name: "id with NUL ignored", in: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", want: []Event{{Data: []byte("a"), ID: "1", Line: 1}, {Data: []byte("b"), ID: "1", Line: 4}}},
		{name: "leading blank lines", in: "\n\r\n\rdata: a\n\n", want: []Event{ev("", "a", 4)}},
		{name: "last event without blank line", in: "data: a\n\ndata: b\n", want: []Event{ev("", "a", 1), {Data: []byte("b"), Line: 3, Unterminated: true}}},
		{name: "last event without blank line, CRLF", in: "data: a\r\n\r\nevent: x\r\ndata: b\r\ndata: c\r\n", want: []Event{ev("", "a", 1), {Name: "x", Named: true, Data: []byte("b\nc"), Line: 3, Unterminated: true}}},
		{name: "last event without blank line, CR", in: "data: a\r", want: []Event{{Data: []byte("a"), Line: 1, Unterminated: true}}},
		{name: "last event then a partial comment", in: "data: a\n: by", want: []Event{{Data: []byte("a"), Line: 1, Unterminated: true}}},
		// A data line the stream's end ends: package streams judges
		// whether the data is whole ({"x is not).
		{name: "last data line without its line end", in: "data: a\ndata: {\"x", want: []Event{{Data: []byte("a\n{\"x"), Line: 1, Unterminated: true}}},
		{name: "[DONE] without its line end", in: "data: a\n\ndata: [DONE]", want: []Event{ev("", "a", 1), {Data: []byte("[DONE]"), Line: 3, Unterminated: true}}},
		{name: "cut in a field name after a data line", in: "data: a\nda", err: ErrIncomplete},
		{name: "cut mid line of another field", in: "data: a\n\ndata: b\nevent: mess", want: []Event{ev("", "a", 1)}, err: ErrIncomplete},
		{name: "cut after event line", in: "data: a\n\nevent: x\n", want: []Event{ev("", "a", 1)}, err: ErrIncomplete},
		{name: "trailing comment is clean", in: "data: a\n\n: bye", want: []Event{ev("", "a", 1)}},
		{name: "data at cap", in: "data: 12345\n\n", max: 5, want: []Event{ev("", "12345", 1)}},
		{name: "data over cap", in: "data: 1\n\ndata: 123456\n\n", max: 5, want: []Event{ev("", "1", 1)}, err: ErrTooLarge},
		{name: "joined data over cap", in: "data: 12\ndata: 12\ndata: 1\n\n", max: 6, err: ErrTooLarge},
		{name: "event name over cap", in: "event: 123456\ndata: 1\n\n", max: 5, err: ErrTooLarge},
		{name: "long comment is fine under cap", in: ": " + strings.Repeat("x", 100) + "\ndata: 1\n\n", max: 5, want: []Event{ev("", "1", 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(tt.in) },
				"one-byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
				"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(tt.in)) },
			}
			for rname, mk := range readers {
				got, err := readAll(mk(), tt.max)
				if tt.err == nil {
					require.NoError(t, err, rname)
				} else {
					require.ErrorIs(t, err, tt.err, rname)
				}
				assert.Equal(t, tt.want, got, rname)
			}
		})
	}
}

// splitReader returns its input in two reads split at a given offset, to
// put every byte (a CR before an LF in particular) at a buffer boundary.
type splitReader struct {
	parts [][]byte
}

func (s *splitReader) Read(p []byte) (int, error) {
	for len(s.parts) > 0 && len(s.parts[0]) == 0 {
		s.parts = s.parts[1:]
	}
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.parts[0])
	s.parts[0] = s.parts[0][n:]
	return n, nil
}

func TestReaderEverySplit(t *testing.T) {
	in := "\xEF\xBB\xBF: c\r\nevent: e\r\ndata: a\r\ndata:b\r\r\nid: 9\rdata: x\n\r\ndata: y\r\n\r\n"
	want, err := readAll(strings.NewReader(in), 0)
	require.NoError(t, err)
	require.Len(t, want, 3)
	for i := 0; i <= len(in); i++ {
		got, err := readAll(&splitReader{parts: [][]byte{[]byte(in[:i]), []byte(in[i:])}}, 0)
		require.NoError(t, err, "split at %d", i)
		assert.Equal(t, want, got, "split at %d", i)
	}
}

// TestReaderIncremental checks that each event is returned as soon as its
// blank line arrives, without waiting for more input — even when the blank
// line ends with a lone CR whose possible LF has not arrived yet.
func TestReaderIncremental(t *testing.T) {
	for _, sep := range []string{"\n", "\r\n", "\r"} {
		t.Run(strings.NewReplacer("\r", "CR", "\n", "LF").Replace(sep), func(t *testing.T) {
			pr, pw := io.Pipe()
			rd := NewReader(pr, 0)
			got := make(chan Event)
			go func() {
				defer close(got)
				for {
					ev, err := rd.Next()
					if err != nil {
						return
					}
					got <- ev
				}
			}()
			for i, d := range []string{"one", "two"} {
				_, err := pw.Write([]byte("data: " + d + sep + sep))
				require.NoError(t, err)
				select {
				case ev := <-got:
					assert.Equal(t, d, string(ev.Data), "event %d", i)
				case <-time.After(time.Minute): // a hang guard
					t.Fatalf("event %d not returned before more input arrived", i)
				}
			}
			pw.Close()
			_, open := <-got
			assert.False(t, open)
		})
	}
}

// countingReader counts the bytes handed out, to prove the reader stops at the cap.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endless yields "data: xxxx..." without end.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	i := 0
	if !e.started {
		e.started = true
		i = copy(p, "data: ")
	}
	for ; i < len(p); i++ {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestReaderLargeLines(t *testing.T) {
	t.Run("20 MB line under the default cap", func(t *testing.T) {
		payload := bytes.Repeat([]byte("QUJD"), 5<<20)
		in := append(append([]byte("event: big\ndata: "), payload...), "\n\n"...)
		got, err := readAll(bytes.NewReader(in), 0)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, "big", got[0].Name)
		assert.True(t, bytes.Equal(payload, got[0].Data))
	})
	t.Run("endless line stops at the cap", func(t *testing.T) {
		const limit = 1 << 20
		cr := &countingReader{r: &endless{}}
		_, err := readAll(cr, limit)
		require.ErrorIs(t, err, ErrTooLarge)
		assert.Contains(t, err.Error(), "line 1")
		// One cap plus at most one buffer fill of read-ahead.
		assert.LessOrEqual(t, cr.n, int64(limit+128<<10))
	})
}

func TestReaderStickyError(t *testing.T) {
	rd := NewReader(strings.NewReader("data: a\nid"), 0)
	ev, err := rd.Next()
	require.ErrorIs(t, err, ErrIncomplete)
	assert.Equal(t, "a", string(ev.Data), "the partial event comes back for diagnostics")
	_, err2 := rd.Next()
	assert.Equal(t, err, err2)

	// An unterminated last event comes back once, then the clean end.
	rd = NewReader(strings.NewReader("data: a\n"), 0)
	ev, err = rd.Next()
	require.NoError(t, err)
	assert.True(t, ev.Unterminated)
	for range 2 {
		_, err = rd.Next()
		assert.Equal(t, io.EOF, err)
	}

	boom := errors.New("boom")
	rd = NewReader(io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom)), 0)
	_, err = rd.Next()
	require.NoError(t, err)
	_, err = rd.Next()
	assert.ErrorIs(t, err, boom)
	_, err = rd.Next()
	assert.ErrorIs(t, err, boom)
}

func TestReaderEOFAfterBlank(t *testing.T) {
	rd := NewReader(strings.NewReader("data: a\n\n"), 0)
	_, err := rd.Next()
	require.NoError(t, err)
	_, err = rd.Next()
	assert.Equal(t, io.EOF, err, "clean end is io.EOF itself, not wrapped")
}
