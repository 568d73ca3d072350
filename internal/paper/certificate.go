package paper

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// Certificate is what a block certificate shows: the block, its digest,
// its prize table and a signature made by the caller.
type Certificate struct {
	Game        int    // game code: 531
	GameName    string // VEGAS
	Block       int
	Tickets     int     // tickets in the block
	Digest      string  // the block digest, hex
	Prizes      []Prize // the prize table, printed in the order given
	GeneratedAt time.Time
	PublicKey   string // Ed25519 public key, hex
	Signature   string // Ed25519 signature, hex
	// PrintedAt is when the certificate is printed; it is the PDF's date
	// too (GeneratedAt when zero).
	PrintedAt time.Time
	// Document, when given, is the signed text of the certificate, attached
	// to the PDF as a file (AttachmentName), which verify-certificate reads.
	Document string
}

// AttachmentName is the name of the signed text attached to a certificate.
const AttachmentName = "certificat.txt"

// Prize is a line of a prize table: so many tickets win so much.
type Prize struct {
	Amount int // euros
	Count  int
}

// WriteCertificate writes a block certificate: A4.
func WriteCertificate(w io.Writer, c Certificate) error {
	block := fmt.Sprintf("%s — jeu %03d — bloc %04d", orDash(c.GameName), c.Game, c.Block)
	m := meta{
		title: "Certificat de bloc — " + block + printed(c.PrintedAt),
		date:  docDate(c.PrintedAt, c.GeneratedAt),
	}
	return writeA4(w, m, func(d *doc) {
		if c.Document != "" {
			d.pdf.SetAttachments([]fpdf.Attachment{{Content: []byte(c.Document), Filename: AttachmentName,
				Description: "Texte signé du certificat"}})
		}
		d.title("Certificat de bloc", block)

		d.heading("Le bloc", 30)
		const lw = 30.0
		d.field(lw, 5.5, "Jeu", fmt.Sprintf("%03d %s", c.Game, c.GameName))
		d.field(lw, 5.5, "Bloc", fmt.Sprintf("%04d", c.Block))
		d.field(lw, 5.5, "Tickets", number(c.Tickets))
		d.field(lw, 5.5, "Généré le", longStamp(c.GeneratedAt))
		d.pdf.Ln(1)
		d.hexField("Empreinte du bloc (SHA-256)", c.Digest, 8)

		d.heading("Tableau des gains", 4*rowH)
		t := table{d, []column{
			{"Gain", 30, "R", false},
			{"En lettres", 70, "L", false},
			{"Tickets gagnants", 35, "R", false},
			{"Montant total", 45, "R", false},
		}, 0}
		t.header()
		winners, payout := 0, 0
		for _, p := range c.Prizes {
			t.row("", "", euros(p.Amount), amountWords(p.Amount), number(p.Count), euros(p.Count*p.Amount))
			winners += p.Count
			payout += p.Count * p.Amount
		}
		t.row("B", "", "Total", "", number(winners), euros(payout))

		d.heading("Signature", 45)
		d.hexField("Clé publique Ed25519", c.PublicKey, 8)
		d.pdf.Ln(1)
		d.hexField("Signature Ed25519", c.Signature, 8)
		d.pdf.Ln(3)
		d.font("", 9.5)
		d.para(0, 5, "Pour vérifier la signature, avec le fichier du certificat (FICHIER) et la clé publique ci-dessus"+nbsp+":", "L")
		d.pdf.Ln(1)
		d.mono("", 9)
		d.line(4.5, "vegas-desk verify-certificate FICHIER \\", "L")
		d.line(4.5, "    --key "+strings.Join(strings.Fields(orDash(c.PublicKey)), ""), "L")
	})
}

// longStamp is a date and time with its offset from UTC, for documents
// read far from the counter: "jeudi 1er mai 2025 à 12:00:00 (UTC+02:00)".
func longStamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return longDate(t) + " à " + t.Format("15:04:05") + " (UTC" + t.Format("-07:00") + ")"
}
