package streams

import (
	"strings"
	"unicode/utf8"
)

// maxText bounds the text a grammar keeps. Text serves expectations such as
// "at least N characters" and reports; a hostile stream of endless deltas
// must not grow it with the stream.
const maxText = 1 << 20

// textBuf accumulates stream text up to maxText bytes and drops the rest,
// and watches its deltas for cumulative ones.
type textBuf struct {
	b strings.Builder
	// prev is the last non-empty delta, and run how many deltas in a row
	// repeated the whole text before them (cumulative).
	prev string
	run  int
}

func (t *textBuf) WriteString(s string) {
	if room := maxText - t.b.Len(); room > 0 {
		if len(s) > room {
			s = s[:room]
		}
		t.b.WriteString(s)
	}
}

func (t *textBuf) String() string { return t.b.String() }

// minRepeated is the least text, in characters, a delta must repeat to
// count as evidence of cumulative deltas: a fragment may begin with a short
// text again by chance ("\n" then "\nThe sea is calm.", "*" then
// "**The sea** is calm.").
const minRepeated = 10

// cumulative observes the next delta, before it is written, and reports
// whether the stream now shows cumulative deltas, deltas that each carry
// the whole text before them and add to it: this delta and the one before
// it each repeated the text so far (the deltas joined, as fragments are
// read, or the delta before it, as a cumulative stream carries it), that
// text of minRepeated characters at least, and each went on past it. A
// cumulative stream's delta grows the text it repeats; a fragment that
// merely equals the text before it ("ABCDEFGHIJ" after "ABCDEFGHIJ", then
// "ABCDEFGHIJABCDEFGHIJ", in a repetitive text) adds nothing it repeats,
// and breaks the run. Chance produces no such run; a client that joins the
// deltas, as the spec's fragments are read, gets the text many times
// over. Anything less, it stays quiet.
func (t *textBuf) cumulative(delta string) bool {
	if delta == "" {
		return false
	}
	repeated := ""
	switch so := t.b.String(); {
	case so != "" && len(delta) > len(so) && strings.HasPrefix(delta, so):
		repeated = so
	case t.prev != "" && len(delta) > len(t.prev) && strings.HasPrefix(delta, t.prev):
		repeated = t.prev
	}
	if utf8.RuneCountInString(repeated) >= minRepeated {
		t.run++
	} else {
		t.run = 0
	}
	t.prev = delta
	return t.run >= 2
}
