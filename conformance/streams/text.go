package streams

import (
	"strings"
	"unicode"
)

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

// repeatedBy reports whether delta repeats the whole text so far, as a
// delta of a stream whose deltas each carry the text before them does (a
// cumulative stream), or a final delta repeating the text. A client that
// joins the deltas, as the spec's fragments are read, gets the text many
// times over. The delta begins with the text and adds to it, or is the text
// again when that holds two words at least: a fragment may equal a text of
// one word by chance ("x" then "x" is "xx", "ha" then "ha" is "haha"), not
// a whole phrase. Cheap for the usual delta, shorter than the text.
func (t *textBuf) repeatedBy(delta string) bool {
	so := t.b.String()
	if so == "" || !strings.HasPrefix(delta, so) {
		return false
	}
	return len(delta) > len(so) || strings.IndexFunc(strings.TrimSpace(so), unicode.IsSpace) >= 0
}
