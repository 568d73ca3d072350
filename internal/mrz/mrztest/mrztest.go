// Package mrztest makes machine-readable zones for tests, their check
// digits computed (mrz.CheckDigit): a zone of any dates a test needs,
// such as a winner who turns 18 tomorrow, without a date that a test
// would one day pass.
package mrztest

import (
	"fmt"
	"strings"
	"time"

	"vegas-desk/internal/mrz"
)

func pad(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

func digit(s string) string { return fmt.Sprint(mrz.CheckDigit(s)) }

// Date is t as a zone writes it, YYMMDD.
func Date(t time.Time) string { return t.Format("060102") }

// Card is the zone of a French identity card of 2021 (TD1, "ID"): number
// (9 letters or digits), the holder's name as "SURNAME<<GIVEN<NAMES",
// birth and expiry dates.
func Card(number, name string, birth, expiry time.Time) string {
	return TD1("ID", "FRA", number, name, birth, expiry)
}

// TD1 is a zone of 3 lines of 30: code ("ID", "IR"), issuer, number,
// name, dates.
func TD1(code, issuer, number, name string, birth, expiry time.Time) string {
	l1 := pad(pad(code, 2)+issuer+pad(number, 9)+digit(pad(number, 9)), 30)
	l2 := pad(Date(birth)+digit(Date(birth))+"F"+Date(expiry)+digit(Date(expiry))+issuer, 29)
	l2 += digit(l1[5:30] + l2[:7] + l2[8:15] + l2[18:29])
	return l1 + "\n" + l2 + "\n" + pad(name, 30)
}

// Passport is the zone of a passport (TD3) of issuer.
func Passport(issuer, number, name string, birth, expiry time.Time) string {
	l1 := pad("P<"+issuer+name, 44)
	l2 := pad(number, 9) + digit(pad(number, 9)) + issuer + Date(birth) + digit(Date(birth)) + "F" + Date(expiry) + digit(Date(expiry)) + strings.Repeat("<", 15)
	l2 += digit(l2[:10] + l2[13:20] + l2[21:43])
	return l1 + "\n" + l2
}
