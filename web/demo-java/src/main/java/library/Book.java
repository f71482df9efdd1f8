package library;

/** A book on the shelves, known by its ISBN. */
public record Book(String isbn, String title) {}
