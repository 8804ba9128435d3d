package htmlpage

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CSP pins exactly the script and style the page inlines (else the
// browser blocks them), and the data cannot close its block.
func TestPageInlinesWhatItsCSPPins(t *testing.T) {
	p := New(ReportCSS, `document.title = "x";`, "test-data", `<p id="facts"></p>`, "drawn by JavaScript", `<section id="s"></section>`)
	var b bytes.Buffer
	require.NoError(t, p.Write(&b, "a <title>", map[string]string{"text": "</script><script>alert(1)</script>"}))
	page := b.String()

	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	assert.Contains(t, page, `content="default-src &#39;none&#39;; img-src data:; style-src &#39;sha256-`)
	unescaped := html.UnescapeString(page)
	assert.Contains(t, unescaped, "script-src "+cspHash(domJS+"\n"+`document.title = "x";`)+";", "CSP pins the script: the DOM helpers, then the page's own")
	assert.Contains(t, unescaped, "style-src "+cspHash(ReportCSS)+";", "CSP pins the style")
	assert.Contains(t, page, "<script>"+domJS+"\n"+`document.title = "x";`+"</script>", "script inlined verbatim")
	assert.Contains(t, page, "<style>"+ReportCSS+"</style>", "style inlined verbatim")
	assert.Equal(t, 2, strings.Count(page, "<script"), "the data block and the page script, nothing injected")
	assert.Contains(t, page, `<script type="application/json" id="test-data">`)
	assert.Contains(t, page, "<title>a &lt;title&gt;</title>")
}
