package library;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** The books lent out, when each is due back, and what late readers owe. */
public class Library {
    /** The fee for each day a book is late, in cents. */
    public static final long FEE_PER_DAY_CENTS = 25;

    private final List<Loan> loans = new ArrayList<>();
    private final int loanDays;

    public Library(int loanDays) {
        if (loanDays <= 0) {
            throw new IllegalArgumentException("a loan lasts at least one day");
        }
        this.loanDays = loanDays;
    }

    /** Lends a book to a reader on a day; it is due back {@code loanDays} days later. */
    public Loan lend(Book book, String reader, LocalDate day) {
        Loan loan = new Loan(book, reader, day, day.plusDays(loanDays));
        loans.add(loan);
        return loan;
    }

    /** Marks a book as returned. */
    public void giveBack(Book book) {
        loans.removeIf(loan -> loan.book().equals(book));
    }

    /** The loans whose due day has passed on {@code today}. */
    public List<Loan> overdue(LocalDate today) {
        List<Loan> late = new ArrayList<>();
        for (Loan loan : loans) {
            if (!loan.due().isAfter(today)) {
                late.add(loan);
            }
        }
        return late;
    }

    /** What a reader owes on {@code today} for the books they kept too long, in cents. */
    public long fees(String reader, LocalDate today) {
        long cents = 0;
        for (Loan loan : overdue(today)) {
            if (loan.reader().equals(reader)) {
                cents += FEE_PER_DAY_CENTS * loan.daysLate(today);
            }
        }
        return cents;
    }
}
