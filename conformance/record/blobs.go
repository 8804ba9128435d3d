package record

import (
	"bytes"
	"encoding/base64"
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
