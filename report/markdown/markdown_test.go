package markdown

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	assert.Equal(t, `a \| b &lt;i&gt; \[x\](y) \*z\* \`+"`c\\`", Escape("a | b <i> [x](y) *z* `c`"))
	assert.Equal(t, `\@team \#12`, Escape("@team #12"))
	assert.Equal(t, "one line", Escape("one\nline"))
	assert.Equal(t, "a¦b 'c'", Code("a|b `c`"))
}

func TestNameSome(t *testing.T) {
	assert.Equal(t, "a, b", NameSome([]string{"a", "b"}, 2))
	assert.Equal(t, "a, b and 2 more", NameSome([]string{"a", "b", "c", "d"}, 2))
	assert.Equal(t, "", NameSome(nil, 3))
}
