package ui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestIcon checks that the repository's Icon.png is the icon drawIcon
// paints; with -update it rewrites it.
func TestIcon(t *testing.T) {
	path := filepath.Join("..", "..", "Icon.png")
	var b bytes.Buffer
	if err := png.Encode(&b, drawIcon(512)); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/ui -run Icon -update)", err)
	}
	img, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != 512 || s.Y != 512 {
		t.Errorf("Icon.png is %v, want 512×512", s)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("Icon.png differs from drawIcon(512); run go test ./internal/ui -run Icon -update")
	}
}
