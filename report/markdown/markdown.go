// Package markdown writes text into the Markdown the report packages
// publish (matrix.md in package report, the diff in package runs): gateway
// text made inert (Escape), code spans that cannot break a table (Code),
// and the small wording helpers their sentences share, such as NameSome,
// which the CLI's console recap uses too.
package markdown

import (
	"fmt"
	"strings"
)

// Escape makes gateway text inert in Markdown: no table breaks, no HTML, no
// links, mentions or emphasis, one line.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~', '@':
			// [ ] stop links (so parentheses need nothing), # stops
			// issue references, @ stops mentions, the rest emphasis,
			// code and table breaks.
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code makes s safe inside a `code span` in a table: no backticks, pipes or
// newlines (GitHub splits table cells on | even inside code).
func Code(s string) string {
	return strings.NewReplacer("`", "'", "|", "¦", "\n", " ", "\r", " ").Replace(s)
}

// Short cuts s to its first n bytes (ids and hashes: ASCII).
func Short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Plural picks the word for n: Plural(1, "cause", "causes").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// NameSome lists the first n names and says how many more there are:
// "a, b, c and 4 more".
func NameSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
