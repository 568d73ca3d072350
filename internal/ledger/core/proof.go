package core

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"

	"vegas-desk/internal/game"
)

// A sealed counter ledger's payment keeps of the serial it paid only its
// public part (PublicSerial: what is printed outside the scratch layer)
// and a proof (SerialProof) that the back office, which derives every
// secret part from its serial keys, recomputes at the import: a thief who
// copies the file learns no paid ticket's secret part, and cannot claim
// it at an online counter before the import comes home.

// proofIterations makes a proof as costly to invert as the index of a
// sealed serial record (the counter ledger's serials), which the file
// holds for every ticket anyway.
const proofIterations = 16

// SerialProof is the proof of serial s a counter's payment keeps: SHA-256
// of "vegas-desk/claim", game, block, position and secret part (as the
// sealed records put them), hashed again proofIterations − 1 times, in hex.
func SerialProof(s game.Serial) string {
	const label = "vegas-desk/claim"
	var in [len(label) + 2 + 2 + 4 + 8]byte
	n := copy(in[:], label)
	binary.BigEndian.PutUint16(in[n:], uint16(s.Game))
	binary.BigEndian.PutUint16(in[n+2:], uint16(s.Block))
	binary.BigEndian.PutUint32(in[n+4:], uint32(s.Position))
	binary.BigEndian.PutUint64(in[n+8:], uint64(s.Secret))
	h := sha256.Sum256(in[:])
	for range proofIterations - 1 {
		h = sha256.Sum256(h[:])
	}
	return hex.EncodeToString(h[:])
}

// ClaimDetail is the detail of a counter's payment: its serial's proof,
// and the hash of the winner's identity when one was recorded.
func ClaimDetail(proof, identity string) string {
	d := "proof=" + proof
	if identity != "" {
		d += "\nidentity=" + identity
	}
	return d
}

// ParseClaimDetail reads a ClaimDetail.
func ParseClaimDetail(d string) (proof, identity string) {
	for _, ln := range strings.Split(d, "\n") {
		k, v, _ := strings.Cut(ln, "=")
		switch k {
		case "proof":
			proof = v
		case "identity":
			identity = v
		}
	}
	return proof, identity
}
