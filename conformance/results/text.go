package results

import (
	"fmt"
	"unicode/utf8"
)

// FileName is the name of the results stream in an --out directory.
const FileName = "results.jsonl"

// Truncate cuts s to at most n bytes on a rune boundary and marks the cut
// with the original length: "abc… (5000 bytes)". Every shortened text in a
// result (gateway bodies, event types, schema values, request summaries) is
// cut here, so the redactor knows the one marker a cut can end in.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("%s (%d bytes)", TruncationMark, len(s))
}

// TruncationMark starts the note Truncate leaves where it cut.
const TruncationMark = "…"
