package streams

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// TestStreamRulesListed: vocab.StreamRules, which the table of clients is
// checked against, names every Rule constant of this package and no other.
func TestStreamRulesListed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "streams.go", nil, 0)
	require.NoError(t, err)
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && strings.HasPrefix(vs.Names[0].Name, "Rule") && len(vs.Values) == 1 {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				consts = append(consts, s)
			}
		}
		return true
	})
	require.NotEmpty(t, consts)
	assert.ElementsMatch(t, consts, vocab.StreamRules)
}
