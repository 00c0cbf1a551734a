COPY Sentence FROM $rows
