package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
)

// blobPrefix starts a blob reference in a body or event: the base64 value
// it replaced is the standard encoding of blobs/<name>.
const blobPrefix = "gwconform-blob:"

// minBlobChars is the shortest base64 value stored as a blob: shorter ones
// stay inline, where they are as readable as a reference. 1 KiB of base64
// is 768 bytes; every image, even a thumbnail-sized one, is longer.
const minBlobChars = 1024

// blobRefRE finds blob references: the SHA-256 of the bytes and their kind.
var blobRefRE = regexp.MustCompile(blobPrefix + `([0-9a-f]{64}\.[a-z0-9]+)`)

// blobName names bytes by content: the same image in a hundred exchanges
// is one file, and its name is the sha256 the results carry for it.
func blobName(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + "." + sniffExt(b)
}

// sniffExt names the kind of a blob by its magic bytes, so that a person
// can open blobs/ with an image viewer.
func sniffExt(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "jpg"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "webp"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return "gif"
	}
	return "bin"
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// extractBlobs replaces every large base64 value in s — a JSON string that
// is nothing but standard base64, or the data of a "data:...;base64," URL
// in one — by a blob reference, adding its decoded bytes to blobs. Only a
// value that decodes strictly (so that encoding the bytes again gives the
// very same text) is replaced: a replay restores it byte for byte.
//
// A scanner rather than a regular expression: RE2 caps a counted repeat at
// 1000, and the values are megabytes long.
func extractBlobs(s []byte, blobs map[string][]byte) []byte {
	var out []byte
	last := 0
	const dataMark = ";base64,"
	for i := 0; i < len(s); i++ {
		var start int
		switch {
		case s[i] == '"':
			start = i + 1
		case s[i] == ';' && bytes.HasPrefix(s[i:], []byte(dataMark)):
			start = i + len(dataMark)
		default:
			continue
		}
		end := start
		for end < len(s) && isBase64Char(s[end]) {
			end++
		}
		for pad := 0; pad < 2 && end < len(s) && s[end] == '='; pad++ {
			end++
		}
		if end >= len(s) || s[end] != '"' || end-start < minBlobChars {
			continue
		}
		raw, err := base64.StdEncoding.Strict().DecodeString(string(s[start:end]))
		if err != nil {
			continue
		}
		name := blobName(raw)
		blobs[name] = raw
		out = append(out, s[last:start]...)
		out = append(out, blobPrefix+name...)
		last = end
		i = end // the closing quote; the loop steps past it
	}
	if out == nil {
		return s
	}
	return append(out, s[last:]...)
}

// restoreBlobs puts back the base64 of every blob reference in s.
func restoreBlobs(s []byte, load func(name string) ([]byte, error)) ([]byte, error) {
	var err error
	out := blobRefRE.ReplaceAllFunc(s, func(ref []byte) []byte {
		name := string(ref[len(blobPrefix):])
		b, e := load(name)
		if e != nil {
			if err == nil {
				err = fmt.Errorf("blob %s: %w", name, e)
			}
			return ref
		}
		return []byte(base64.StdEncoding.EncodeToString(b))
	})
	return out, err
}

// describeBlobs replaces every blob reference in s by a short description,
// for transcripts: "<png sha256:0123456789ab…>".
func describeBlobs(s string) string {
	return blobRefRE.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[len(blobPrefix):]
		return fmt.Sprintf("<%s sha256:%s…>", name[65:], name[:12])
	})
}
