package streams

import "strings"

// maxText bounds the text a grammar keeps. Text serves expectations such as
// "at least N characters" and reports; a hostile stream of endless deltas
// must not grow it with the stream.
const maxText = 1 << 20

// textBuf accumulates stream text up to maxText bytes and drops the rest.
type textBuf struct{ b strings.Builder }

func (t *textBuf) WriteString(s string) {
	if room := maxText - t.b.Len(); room > 0 {
		if len(s) > room {
			s = s[:room]
		}
		t.b.WriteString(s)
	}
}

func (t *textBuf) String() string { return t.b.String() }
